package stdiofake

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// damagedLines maps each damaged shape to its line. Every one classifies as
// jsonrpc.ClassDamaged: it may be a broken message, so a client must end the
// session rather than skip it (NG-01, NG-02). "truncated-result" is built per
// call from the real response; its entry here is unused.
var damagedLines = []struct{ shape, line string }{
	{"brace", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","te`},
	{"brace-text", `{not json at all`},
	{"batch", `[{"jsonrpc":"2.0","id":1,`},
	{"batch-open", `[`},
	{"jsonrpc", `warning: lost a jsonrpc frame`},
	{"truncated-result", ""},
	{"bad-escape", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"bad \x escape"}]}}`},
}

// DamagedShapes lists the shapes of the damaged case.
func DamagedShapes() []string {
	shapes := make([]string, len(damagedLines))
	for i, d := range damagedLines {
		shapes[i] = d.shape
	}
	return shapes
}

// DamagedLine returns the line the damaged case writes for shape; for
// "truncated-result", the first half of a success response to a call with id
// 1 (the fake cuts the real response). It returns "" for an unknown shape.
func DamagedLine(shape string) string {
	return damagedLine(shape, fakeservers.ToolCall{Req: &jsonrpc.Message{ID: jsonrpc.IntID(1)}, Name: "echo"})
}

// damagedLine returns the damaged line of shape for call c.
func damagedLine(shape string, c fakeservers.ToolCall) string {
	if shape == "truncated-result" {
		b := fakeservers.Encode(c.OK())
		return string(b[:len(b)/2])
	}
	for _, d := range damagedLines {
		if d.shape == shape {
			return d.line
		}
	}
	return ""
}

func damaged(o Options) (*behaviour, error) {
	if !slices.Contains(DamagedShapes(), o.Shape) {
		return nil, fmt.Errorf("--shape %q is not a damaged shape; shapes: %s", o.Shape, strings.Join(DamagedShapes(), ", "))
	}
	return &behaviour{call: func(s *server, c fakeservers.ToolCall) {
		s.stdout.group(func(w *lineWriter) { w.line(damagedLine(o.Shape, c)) })
		leaveUnanswered(s, c)
	}}, nil
}

// nonObjectValues are valid JSON that is neither an object nor a batch.
var nonObjectValues = []string{`42`, `"x"`, `null`, `true`, `[]`}

// NonObjectValues lists the --shape values of the non-object case: lines that
// classify as jsonrpc.ClassNonObject.
func NonObjectValues() []string { return slices.Clone(nonObjectValues) }

func nonObject(o Options) (*behaviour, error) {
	if !slices.Contains(nonObjectValues, o.Shape) {
		return nil, fmt.Errorf("--shape %q is not a non-object value; values: %s", o.Shape, strings.Join(nonObjectValues, " "))
	}
	return &behaviour{call: func(s *server, c fakeservers.ToolCall) {
		s.stdout.group(func(w *lineWriter) { w.line(o.Shape) })
		leaveUnanswered(s, c)
	}}, nil
}
