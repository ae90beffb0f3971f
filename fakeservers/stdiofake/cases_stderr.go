package stdiofake

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
)

// floodChunkBytes is the size of the one buffer a stderr flood is written
// from, whatever its total size.
const floodChunkBytes = 64 << 10

// floodLineBytes is the least size of a flood line, newline included.
const floodLineBytes = 100

// maxSecretBytes bounds a stderr marker, so a flood line fits a chunk many times.
const maxSecretBytes = 1024

func checkSecret(m string) error {
	switch {
	case strings.ContainsAny(m, "\r\n"):
		return errors.New("--marker must not contain a line break")
	case len(m) > maxSecretBytes:
		return fmt.Errorf("--marker is %d bytes; at most %d", len(m), maxSecretBytes)
	}
	return nil
}

func stderrFlood(o Options) (*behaviour, error) {
	if o.Bytes < 0 {
		return nil, fmt.Errorf("--bytes must be 0 or more, got %d", o.Bytes)
	}
	if err := checkSecret(o.Marker); err != nil {
		return nil, err
	}
	flood := func(s *server) {
		s.rec.Note(fmt.Sprintf("flood start: %d bytes to stderr", o.Bytes))
		s.stderr.group(func(w *lineWriter) {
			w.flood(o.Marker, o.Bytes)
			if w.err == nil {
				s.rec.Note("flood done")
			}
		})
	}
	switch o.When {
	case "before":
		return &behaviour{start: flood}, nil
	case "during":
		return &behaviour{call: func(s *server, c fakeservers.ToolCall) {
			flood(s)
			s.respond(c.OK())
		}}, nil
	}
	return nil, fmt.Errorf("--when must be before (at start) or during (on tools/call), got %q", o.When)
}

// flood writes total bytes of lines that each start with marker, from one
// reused chunk. Writes block while the reader does not drain them: a client
// that does not read stderr stalls the fake, which is what the case tests.
func (w *lineWriter) flood(marker string, total int64) {
	line := floodLine(marker)
	chunk := make([]byte, 0, floodChunkBytes)
	for len(chunk)+len(line) <= floodChunkBytes {
		chunk = append(chunk, line...)
	}
	for remaining := total; remaining > 0 && w.err == nil; {
		if remaining > int64(len(chunk)) {
			w.raw(chunk)
			remaining -= int64(len(chunk))
			continue
		}
		// The tail: whole lines, then one line cut short to fit.
		whole := int(remaining) / len(line) * len(line)
		w.raw(chunk[:whole])
		if rest := int(remaining) - whole; rest > 0 {
			w.raw(append([]byte(line[:rest-1]), '\n'))
		}
		remaining = 0
	}
}

// floodLine is one line of a flood: the marker first, so that even a cut line
// keeps as much of it as possible.
func floodLine(marker string) string {
	text := strings.TrimSpace(marker + " mcpconform fake stderr flood ")
	if len(text) < floodLineBytes-1 {
		text += " " + strings.Repeat(".", floodLineBytes-2-len(text))
	}
	return text + "\n"
}

func stderrSecretExit(o Options) (*behaviour, error) {
	if o.Marker == "" {
		return nil, errors.New("--marker is required: the secret the client must not leak")
	}
	if err := checkSecret(o.Marker); err != nil {
		return nil, err
	}
	return &behaviour{call: func(s *server, c fakeservers.ToolCall) {
		s.stderr.group(func(w *lineWriter) {
			w.line("mcpconform fake: loading credentials " + o.Marker)
			w.line("mcpconform fake: error: token " + o.Marker + " was rejected")
			w.line("mcpconform fake: fatal: giving up")
		})
		s.exitWith(1, fmt.Sprintf("stderr-secret-exit: status 1 on tools/call %s, after writing the secret to stderr", c.Req.ID))
	}}, nil
}
