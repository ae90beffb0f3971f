package fuzz

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/harness/report"
)

// Case is one corpus case: what it shows, the invariant it breaks, and the
// frames that break it, in order. Its text form (Format, ParseCase) is
// documented in corpus/README.md:
//
//	# what the case shows (comment lines, kept)
//	invariant: one-response
//	transport: any
//	seed: 1
//	output-schema: get_weather {"type":"object","required":["temperature"]}
//
//	slow: slow
//
//	send {"jsonrpc":"2.0","id":1,"method":"ping"}
//	send-until-progress {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow","arguments":{},"_meta":{"progressToken":"p4"}}}
//	send-nowait {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}
//	send "{\"jsonrpc\":\"2.0\",\xff"
//	stdio send {"jsonrpc":"2.0","id":2,"method":"ping"}
//	http header Content-Type: text/plain
//	http send {"jsonrpc":"2.0","id":3,"method":"ping"}
//	http delete
type Case struct {
	// Comment is what the case shows, one line each (without "# ").
	Comment []string
	// Invariant is the invariant the frames break.
	Invariant Invariant
	// Transport is where the case applies: "stdio", "http" or "any".
	Transport string
	// Seed is the fuzzer seed that found it (0: written by hand).
	Seed int64
	// Outputs are the outputSchemas, by tool name, that the tools it
	// calls declared when it was found: what an output-schema case is
	// judged against (see ExecOptions.Outputs).
	Outputs map[string]json.RawMessage
	// Slow are the tools it calls that the fixtures named slow (answering
	// only when cancelled, or after long): what a no-response-after-cancel
	// case is judged with (see ExecOptions.SlowTools).
	Slow []string
	// Frames are sent in order. Without any, the case is the server's
	// start, one probe ping and its end: what a server that breaks an
	// invariant on that alone (a process it leaves behind) shrinks to.
	Frames []Frame
}

// ParseCase reads a case in its text form, line by line, refusing one past
// report.MaxCaseFile (a case is a few frames); name says where it came from,
// for errors.
func ParseCase(name string, r io.Reader) (*Case, error) {
	lr := &io.LimitedReader{R: r, N: report.MaxCaseFile + 1}
	tooBig := func() error {
		return fmt.Errorf("%s: larger than %s; a corpus case holds a few frames", name, report.Size(report.MaxCaseFile))
	}
	c := &Case{Transport: "any"}
	var pending map[string]string
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 64<<10), report.MaxCaseFile)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		bad := func(format string, args ...any) error {
			if lr.N == 0 { // the line was cut at the limit
				return tooBig()
			}
			return fmt.Errorf("%s:%d: %s; see corpus/README.md for the case format", name, n, fmt.Sprintf(format, args...))
		}
		switch {
		case strings.TrimSpace(line) == "":
			continue
		case strings.HasPrefix(line, "#"):
			c.Comment = append(c.Comment, strings.TrimPrefix(strings.TrimPrefix(line, "#"), " "))
			continue
		}
		if key, value, ok := header(line); ok {
			switch key {
			case "invariant":
				inv, err := ParseInvariant(value)
				if err != nil {
					return nil, bad("%v", err)
				}
				c.Invariant = inv
			case "transport":
				if value != "any" && value != "stdio" && value != "http" {
					return nil, bad("transport %q; use any, stdio or http", value)
				}
				c.Transport = value
			case "seed":
				seed, err := strconv.ParseInt(value, 10, 64)
				if err != nil {
					return nil, bad("seed %q is not an integer", value)
				}
				c.Seed = seed
			case "output-schema":
				tool, schema, _ := strings.Cut(value, " ")
				if tool == "" || !json.Valid([]byte(schema)) {
					return nil, bad("output-schema %q; write output-schema: TOOL {JSON Schema}", clip(value, 60))
				}
				if c.Outputs == nil {
					c.Outputs = map[string]json.RawMessage{}
				}
				c.Outputs[tool] = json.RawMessage(schema)
			case "slow":
				if value == "" || strings.ContainsAny(value, " \t") {
					return nil, bad("slow %q; write slow: TOOL, one tool a line", clip(value, 60))
				}
				c.Slow = append(c.Slow, value)
			}
			continue
		}
		only, rest := "", line
		for _, t := range []string{"stdio", "http"} {
			if strings.HasPrefix(rest, t+" ") {
				only, rest = t, rest[len(t)+1:]
			}
		}
		verb, arg, _ := strings.Cut(rest, " ")
		switch verb {
		case "header":
			if only != "http" {
				return nil, bad("a header line starts with \"http header\"")
			}
			hname, hvalue, ok := strings.Cut(arg, ":")
			if !ok || strings.TrimSpace(hname) == "" {
				return nil, bad("header %q; write http header NAME: VALUE", arg)
			}
			if pending == nil {
				pending = map[string]string{}
			}
			pending[strings.TrimSpace(hname)] = strings.TrimSpace(hvalue)
		case "send", WaitNone.verb(), WaitProgress.verb(), "delete":
			f := Frame{Only: only, Header: pending, Wait: waitOf(verb)}
			pending = nil
			if verb == "delete" {
				if only != "http" {
					return nil, bad("a delete line reads \"http delete\"")
				}
				f.Method = "DELETE"
			} else {
				body, err := parseBody(arg)
				if err != nil {
					return nil, bad("%v", err)
				}
				f.Body = body
			}
			c.Frames = append(c.Frames, f)
		default:
			return nil, bad("unknown line %q", clip(line, 60))
		}
	}
	if lr.N == 0 {
		return nil, tooBig()
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if c.Invariant == "" {
		return nil, fmt.Errorf("%s: no \"invariant:\" line; name the invariant the case breaks (%s)", name, invariantList())
	}
	return c, nil
}

// header splits a "key: value" metadata line.
func header(line string) (key, value string, ok bool) {
	key, value, ok = strings.Cut(line, ":")
	switch key {
	case "invariant", "transport", "seed", "output-schema", "slow":
		return key, strings.TrimSpace(value), ok
	}
	return "", "", false
}

// waitOf is the Wait a send verb names.
func waitOf(verb string) Wait {
	for _, w := range []Wait{WaitNone, WaitProgress} {
		if verb == w.verb() {
			return w
		}
	}
	return WaitAnswers
}

// parseBody reads a send line's body: Go-quoted when it starts with a
// double quote, else the rest of the line verbatim.
func parseBody(arg string) ([]byte, error) {
	if strings.HasPrefix(arg, `"`) {
		s, err := strconv.Unquote(arg)
		if err != nil {
			return nil, fmt.Errorf("quoted body %s: %v", clip(arg, 40), err)
		}
		return []byte(s), nil
	}
	return []byte(arg), nil
}

// Format renders the case in its text form; ParseCase reads it back.
func (c *Case) Format() []byte {
	var b bytes.Buffer
	for _, line := range c.Comment {
		if line == "" {
			b.WriteString("#\n")
			continue
		}
		fmt.Fprintf(&b, "# %s\n", line)
	}
	fmt.Fprintf(&b, "invariant: %s\ntransport: %s\n", c.Invariant, c.transport())
	if c.Seed != 0 {
		fmt.Fprintf(&b, "seed: %d\n", c.Seed)
	}
	for _, tool := range sortedKeys(c.Outputs) {
		fmt.Fprintf(&b, "output-schema: %s %s\n", tool, compact(string(c.Outputs[tool])))
	}
	for _, tool := range c.Slow {
		fmt.Fprintf(&b, "slow: %s\n", tool)
	}
	b.WriteString("\n")
	for _, f := range c.Frames {
		for _, name := range f.headerNames() {
			fmt.Fprintf(&b, "http header %s: %s\n", name, f.Header[name])
		}
		if f.Only != "" {
			b.WriteString(f.Only + " ")
		}
		if f.Method == "DELETE" {
			b.WriteString("delete\n")
			continue
		}
		b.WriteString(f.Wait.verb() + " " + formatBody(f.Body) + "\n")
	}
	return b.Bytes()
}

func (c *Case) transport() string {
	if c.Transport == "" {
		return "any"
	}
	return c.Transport
}

// formatBody writes a body verbatim when that reads back the same, else
// Go-quoted.
func formatBody(body []byte) string {
	plain := utf8.Valid(body) && len(body) > 0 && body[0] != '"' &&
		!bytes.ContainsAny(body, "\r\n") && strings.TrimSpace(string(body)) == string(body)
	for _, r := range string(body) {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			plain = false
			break
		}
	}
	if plain {
		return string(body)
	}
	return strconv.Quote(string(body))
}

// clip shortens s for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
