package stdiofake

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// maxBannerLineBytes is the size of the lines banner-bytes writes, newline included.
const maxBannerLineBytes = 100

// maxTextMarkerBytes keeps a banner line with its marker within
// maxBannerLineBytes: the longest shape (25 bytes), "mcpconform fake
// banner " (23), " line 9999999" (13) and the newline leave 38.
const maxTextMarkerBytes = 38

// bannerShapes are the starts of the banner lines, in turn: what real
// servers print before and between messages, the ones a careless client
// takes for JSON first, so a banner opens with a bracketed level ('[' that
// opens no batch), then timestamps, an ANSI colour escape, numbers, a
// quote, and a word last. None makes the line JSON or opens a batch, and
// none holds "jsonrpc", so every line is text (NG-01).
var bannerShapes = []string{
	"[INFO] ",
	"2026-12-03T13:01:41Z ",
	"\x1b[32mINFO\x1b[0m ",
	"42 ",
	"2026-01-01 12:00:00 INFO ",
	`"ready" `,
	"[2026-12-03 13:01:41] ",
	"3.5 MiB ",
	"",
}

// BannerShapes is how many shapes the banner lines take in turn: a banner
// of that many lines shows every one.
func BannerShapes() int { return len(bannerShapes) }

// bannerText returns the next text line, without newline, e.g.
// "2026-01-01 12:00:00 INFO mcpconform fake banner MARKER line 7".
func (s *server) bannerText() string {
	n := s.banner.Add(1)
	shape := bannerShapes[(n-1)%int64(len(bannerShapes))]
	if s.o.Marker == "" {
		return shape + "mcpconform fake banner line " + strconv.FormatInt(n, 10)
	}
	return fmt.Sprintf("%smcpconform fake banner %s line %d", shape, s.o.Marker, n)
}

// bannerLines writes n text lines.
func (w *lineWriter) bannerLines(s *server, n int) {
	for i := 0; i < n && w.err == nil; i++ {
		w.line(s.bannerText())
	}
}

// bannerBytes writes text lines whose sizes, newlines included, add up to
// exactly total: lines of maxBannerLineBytes, the last one what remains. With
// maxLines > 0 it writes at most that many lines, longer ones if need be, so
// that a line budget is never what a byte-budget scenario spends.
func (w *lineWriter) bannerBytes(s *server, total int64, maxLines int) {
	lineSize := int64(maxBannerLineBytes)
	if maxLines > 0 {
		lineSize = max(lineSize, (total+int64(maxLines)-1)/int64(maxLines))
	}
	for remaining := total; remaining > 0 && w.err == nil; {
		size := int(min(remaining, lineSize))
		text := s.bannerText()
		if len(text) >= size {
			text = text[:size-1]
		} else {
			text += strings.Repeat(".", size-1-len(text))
		}
		if jsonrpc.ClassifyLine([]byte(text)) != jsonrpc.ClassText {
			text = strings.Repeat("x", len(text)) // a cut "42 …" is JSON: keep the size, not the shape
		}
		w.line(text)
		remaining -= int64(size)
	}
}

// checkTextMarker rejects a marker that would make a banner line anything
// but one line of text.
func checkTextMarker(m string) error {
	switch {
	case strings.ContainsAny(m, "\r\n"):
		return errors.New("--marker must not contain a line break")
	case strings.Contains(strings.ToLower(m), "jsonrpc"):
		return errors.New(`--marker must not contain "jsonrpc": the line would classify as damaged, not text`)
	case len(m) > maxTextMarkerBytes:
		return fmt.Errorf("--marker is %d bytes; at most %d fit a banner line", len(m), maxTextMarkerBytes)
	}
	return nil
}

func checkBannerOptions(o Options) error {
	if o.Lines < 0 {
		return fmt.Errorf("--lines must be 0 or more, got %d", o.Lines)
	}
	if o.Bytes < 0 {
		return fmt.Errorf("--bytes must be 0 or more, got %d", o.Bytes)
	}
	if o.Tools < 0 {
		return fmt.Errorf("--tools must be 0 (the default) or more, got %d", o.Tools)
	}
	return checkTextMarker(o.Marker)
}

func bannerBeforeInit(o Options) (*behaviour, error) {
	if err := checkBannerOptions(o); err != nil {
		return nil, err
	}
	return &behaviour{start: func(s *server) {
		s.stdout.group(func(w *lineWriter) { w.bannerLines(s, o.Lines) })
	}}, nil
}

func bannerLines(o Options) (*behaviour, error) {
	if err := checkBannerOptions(o); err != nil {
		return nil, err
	}
	return &behaviour{call: func(s *server, c fakeservers.ToolCall) {
		s.stdout.group(func(w *lineWriter) {
			w.bannerLines(s, o.Lines)
			w.message(c.OK())
		})
	}}, nil
}

func bannerBytes(o Options) (*behaviour, error) {
	if err := checkBannerOptions(o); err != nil {
		return nil, err
	}
	return &behaviour{call: func(s *server, c fakeservers.ToolCall) {
		s.stdout.group(func(w *lineWriter) {
			w.bannerBytes(s, o.Bytes, o.Lines)
			w.message(c.OK())
		})
	}}, nil
}

// Defaults of banner-between.
const (
	defaultBetweenTools = 3
	defaultBetweenLines = 2
)

func bannerBetween(o Options) (*behaviour, error) {
	if err := checkBannerOptions(o); err != nil {
		return nil, err
	}
	tools, lines := o.Tools, o.Lines
	if tools == 0 {
		tools = defaultBetweenTools
	}
	if lines == 0 {
		lines = defaultBetweenLines
	}
	names := make([]string, tools)
	for i := range names {
		names[i] = "t" + strconv.Itoa(i+1)
	}
	return &behaviour{
		tools: names,
		respond: func(s *server, m *jsonrpc.Message) {
			s.stdout.group(func(w *lineWriter) {
				w.bannerLines(s, lines)
				w.message(m)
				w.bannerLines(s, lines)
			})
		},
	}, nil
}
