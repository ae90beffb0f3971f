package fuzz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// Signature names a finding's group: the invariant it breaks and the shape
// of its minimal case (Shape), hashed to a short key that an
// expected-failures file can carry ("one-response-3f2a9c1b7d04"). Two
// findings with one signature are one defect seen twice: the same frames
// up to their ids, strings and numbers.
func Signature(inv Invariant, frames []Frame) string {
	sum := sha256.Sum256([]byte(Shape(frames)))
	return string(inv) + "-" + hex.EncodeToString(sum[:6])
}

// Shape renders frames without their concrete values, one frame after the
// other joined by " > ": a JSON frame as its skeleton (method names, the
// protocol version and a tool's or prompt's name kept; every other string,
// boolean and ordinary integer "v", a long string "S", a number no parser
// need read as written by its class, "bigint" past 2^53-1, "frac", "huge";
// a valid id, string or integer, "id"), an unreadable one by its class and what
// makes it so (invalid UTF-8, a byte-order mark, a raw newline), an HTTP
// frame with its method and the headers it overrides, a frame that does not
// await its answers with its Wait.
func Shape(frames []Frame) string {
	parts := make([]string, len(frames))
	for i, f := range frames {
		parts[i] = frameShape(f)
	}
	return strings.Join(parts, " > ")
}

func frameShape(f Frame) string {
	var b strings.Builder
	if f.Only != "" {
		b.WriteString(f.Only + ":")
	}
	if f.Wait != WaitAnswers {
		b.WriteString(string(f.Wait) + ":")
	}
	if f.Method != "" {
		b.WriteString(f.Method + " ")
	}
	for _, name := range f.headerNames() {
		v := f.Header[name]
		if v != "" && v != "foreign" {
			v = "s"
		}
		fmt.Fprintf(&b, "%s=%s ", strings.ToLower(name), v)
	}
	body := bytes.TrimSpace(f.Body)
	if len(body) == 0 && f.Method != "" {
		return strings.TrimSpace(b.String())
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if utf8.Valid(body) && json.Valid(body) && dec.Decode(&v) == nil {
		if bytes.ContainsAny(f.Body, "\r\n") {
			b.WriteString("newline-in ")
		}
		skeleton(&b, v, "", 0)
		return b.String()
	}
	b.WriteString(jsonrpc.ClassifyLine(body).String())
	switch {
	case !utf8.Valid(body):
		b.WriteString("(invalid-utf8)")
	case bytes.HasPrefix(body, []byte("\xef\xbb\xbf")):
		b.WriteString("(bom)")
	case bytes.ContainsAny(body, "\r\n"):
		b.WriteString("(raw-newline)")
	}
	return b.String()
}

// literalKeys are the members whose string value is kept in a shape: what
// selects the rules or the handler, not data.
var literalKeys = map[string]bool{"jsonrpc": true, "method": true, "protocolVersion": true, "name": true}

// maxShapeDepth bounds the skeleton: deeper, only whether nesting goes on
// past what a server must read (maxBoundDepth) is kept.
const maxShapeDepth = 6

func skeleton(b *strings.Builder, v any, key string, depth int) {
	if depth > maxShapeDepth {
		b.WriteString("…")
		return
	}
	if key == "id" || key == "requestId" {
		// A valid id, string or integer, is one shape: a defect that
		// shows with either is one group. An id of a forbidden type
		// keeps its class.
		if n, ok := v.(json.Number); ok && numberClass(string(n)) == "int" {
			v = ""
		}
		if _, ok := v.(string); ok {
			b.WriteString("id")
			return
		}
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(k + ":")
			skeleton(b, x[k], k, depth+1)
		}
		b.WriteByte('}')
	case []any:
		// Elements are kept by their distinct shapes, in order: a batch of
		// three pings and one of two have one shape.
		b.WriteByte('[')
		seen := map[string]bool{}
		for _, e := range x {
			var eb strings.Builder
			skeleton(&eb, e, "", depth+1)
			if s := eb.String(); !seen[s] {
				if len(seen) > 0 {
					b.WriteByte(',')
				}
				seen[s] = true
				b.WriteString(s)
			}
		}
		b.WriteByte(']')
	case string:
		switch {
		case literalKeys[key] && len(x) <= 64:
			b.WriteString(strconvQuote(x))
		case len(x) > 1024:
			b.WriteString("S")
		default:
			b.WriteString("v")
		}
	case json.Number:
		// An ordinary number is any scalar: arguments generated valid
		// and just invalid differ in their scalars' types, not in the
		// defect they show; a number no parser reads as written keeps
		// its class.
		if c := numberClass(string(x)); c != "int" {
			b.WriteString(c)
		} else {
			b.WriteString("v")
		}
	case bool:
		b.WriteString("v")
	case nil:
		b.WriteString("null")
	}
}

func strconvQuote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// maxExact is the largest magnitude every JSON parser reads exactly
// (RFC 8259, section 6: 2^53-1).
var maxExact = big.NewInt(1<<53 - 1)

// numberClass says what kind of number the JSON literal n is, by value:
// "int" for an integer every parser reads exactly (-0, 1.0 and 1e3
// included), "bigint" for an integer past that, "frac" for one with a
// fractional part, "huge" past what is worth reading.
func numberClass(n string) string {
	r, ok := numberValue(n)
	switch {
	case !ok:
		return "huge"
	case !r.IsInt():
		return "frac"
	case r.Num().CmpAbs(maxExact) > 0:
		return "bigint"
	}
	return "int"
}

// numberValue reads a JSON number exactly; false for one whose exponent
// is past float64's (no parser reads such a number as written).
func numberValue(n string) (*big.Rat, bool) {
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		var exp int
		if _, err := fmt.Sscan(n[i+1:], &exp); err != nil || exp > 308 || exp < -324 {
			return nil, false
		}
	}
	r, ok := new(big.Rat).SetString(n)
	return r, ok
}
