package stdiofake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/mcpconform/mcpconform/fakeservers"
)

// Script is the --file of the script case: the tools to offer and what to
// write on each tools/call, in arrival order.
type Script struct {
	Tools []string `json:"tools"` // empty: one tool, "echo"
	// LongBanner, when above 0, is one text line of that many bytes
	// (newline included) that goes to stdout first, before stdin is read:
	// a line longer than the pipe, which a client that gives up on it
	// mid-line leaves the fake writing, its stdin unread.
	LongBanner int64 `json:"long_banner,omitempty"`
	// Banner lines go to stdout before stdin is read, so they come before
	// the initialize reply.
	Banner []string     `json:"banner,omitempty"`
	Calls  []ScriptCall `json:"calls"` // calls beyond these get the default reply
}

// ScriptCall is what the script case writes on one tools/call: Stderr
// bytes of flood lines to stderr, then the Before lines as they are (each
// plus a newline), the success result if Reply (no answer otherwise), then
// the After lines.
type ScriptCall struct {
	Stderr int64    `json:"stderr,omitempty"`
	Before []string `json:"before,omitempty"`
	Reply  bool     `json:"reply"`
	After  []string `json:"after,omitempty"`
}

// WriteScript writes sc to path for `--case script --file path`.
func WriteScript(path string, sc Script) error {
	b, err := json.MarshalIndent(sc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode fake server script: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write fake server script: %w", err)
	}
	return nil
}

func readScript(path string) (Script, error) {
	var sc Script
	data, err := os.ReadFile(path)
	if err != nil {
		return sc, fmt.Errorf("read script: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		return sc, fmt.Errorf(`script %s: %w (want {"tools":[…],"calls":[{"before":[…],"reply":true,"after":[…]}]})`, path, err)
	}
	return sc, nil
}

func script(o Options) (*behaviour, error) {
	if o.File == "" {
		return nil, errors.New("--file is required: the script (see stdiofake.Script)")
	}
	sc, err := readScript(o.File)
	if err != nil {
		return nil, err
	}
	b := &behaviour{tools: sc.Tools, call: func(s *server, c fakeservers.ToolCall) {
		if c.Index >= len(sc.Calls) {
			s.respond(c.OK())
			return
		}
		step := sc.Calls[c.Index]
		if step.Stderr > 0 {
			s.stderr.group(func(w *lineWriter) { w.flood("", step.Stderr) })
		}
		s.stdout.group(func(w *lineWriter) {
			for _, l := range step.Before {
				w.line(l)
			}
			if step.Reply {
				w.message(c.OK())
			}
			for _, l := range step.After {
				w.line(l)
			}
		})
		if !step.Reply {
			leaveUnanswered(s, c)
		}
	}}
	if sc.LongBanner > 0 || len(sc.Banner) > 0 {
		b.start = func(s *server) {
			s.stdout.group(func(w *lineWriter) {
				if sc.LongBanner > 0 {
					w.bannerBytes(s, sc.LongBanner, 1)
				}
				for _, l := range sc.Banner {
					w.line(l)
				}
			})
		}
	}
	return b, nil
}
