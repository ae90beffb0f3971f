package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

// This file is self-contained (standard library and package code only) so
// that OSS-Fuzz's native Go build, which compiles it without the package's
// other test files, can build it as it is. Its seeds are the files under
// testdata/fuzz, the cases of classify_test.go and decode_test.go among them.

// fuzzBOM is the UTF-8 byte order mark a line may start with.
const fuzzBOM = "\xEF\xBB\xBF"

// FuzzClassifyLine checks the NG-01/NG-02 invariants on arbitrary lines.
// The oracles below are written from the rule, not from the implementation:
// the line is trimmed here of JSON white space and one leading BOM, and the
// class must follow from what encoding/json makes of what is left.
func FuzzClassifyLine(f *testing.F) {
	f.Fuzz(func(t *testing.T, line []byte) {
		kept := bytes.Clone(line)
		c := ClassifyLine(line)
		if !bytes.Equal(line, kept) {
			t.Fatalf("ClassifyLine changed its input from %q to %q", kept, line)
		}
		trimmed := trimPerRule(line)
		if got := TrimLine(line); !bytes.Equal(got, trimmed) {
			t.Fatalf("TrimLine(%q) = %q, want %q", line, got, trimmed)
		}
		valid := json.Valid(trimmed)

		switch c {
		case ClassMessage, ClassBatch, ClassNonObject:
			if !valid {
				t.Fatalf("%q: class %v but the trimmed line is not valid JSON", line, c)
			}
		case ClassText, ClassDamaged:
			if valid {
				t.Fatalf("%q: class %v but the trimmed line is valid JSON", line, c)
			}
		default:
			t.Fatalf("%q: unknown class %d", line, int(c))
		}
		mayBeDamaged := len(trimmed) > 0 &&
			(trimmed[0] == '{' || opensBatchPerRule(trimmed) || bytes.Contains(trimmed, []byte("jsonrpc")))
		switch c {
		case ClassMessage:
			if trimmed[0] != '{' {
				t.Fatalf("%q: message that does not start with '{'", line)
			}
		case ClassBatch:
			if !isObjectArray(trimmed) {
				t.Fatalf("%q: batch that is not a non-empty array of objects", line)
			}
		case ClassNonObject:
			if trimmed[0] == '{' || isObjectArray(trimmed) {
				t.Fatalf("%q: non-object JSON that is an object or a batch", line)
			}
		case ClassText:
			if mayBeDamaged {
				t.Fatalf("%q: skippable text that could be a damaged message", line)
			}
		case ClassDamaged:
			if !mayBeDamaged {
				t.Fatalf("%q: damaged, but no '{', batch opener or \"jsonrpc\"", line)
			}
		}

		for _, wrapped := range [][]byte{
			concat(" ", line, " "),
			concat("\t\r\n ", line, "\r\n"),
		} {
			if got := ClassifyLine(wrapped); got != c {
				t.Fatalf("%q is %v but with white space around it %v", line, c, got)
			}
		}
		if !bytes.HasPrefix(bytes.TrimLeft(line, " \t\r\n"), []byte(fuzzBOM)) {
			if got := ClassifyLine(concat(fuzzBOM, line, "")); got != c {
				t.Fatalf("%q is %v but after a BOM %v", line, c, got)
			}
		}
	})
}

// trimPerRule drops JSON white space (space, tab, CR, LF) around the line,
// and one BOM at its start with the white space after it.
func trimPerRule(line []byte) []byte {
	const space = " \t\r\n"
	t := bytes.Trim(line, space)
	if rest, ok := bytes.CutPrefix(t, []byte(fuzzBOM)); ok {
		t = bytes.TrimLeft(rest, space)
	}
	return t
}

// opensBatchPerRule: '[' then optional white space then '{', ']' or the end.
func opensBatchPerRule(t []byte) bool {
	if len(t) == 0 || t[0] != '[' {
		return false
	}
	rest := bytes.TrimLeft(t[1:], " \t\r\n")
	return len(rest) == 0 || rest[0] == '{' || rest[0] == ']'
}

// isObjectArray reports whether t is a JSON array with at least one element,
// all of them objects.
func isObjectArray(t []byte) bool {
	var elems []any
	if json.Unmarshal(t, &elems) != nil || len(elems) == 0 {
		return false
	}
	for _, e := range elems {
		if _, ok := e.(map[string]any); !ok {
			return false
		}
	}
	return true
}

func concat(before string, line []byte, after string) []byte {
	out := make([]byte, 0, len(before)+len(line)+len(after))
	return append(append(append(out, before...), line...), after...)
}

// FuzzDecode checks that Decode never panics, fails only with ErrInvalid,
// accepts exactly what the JSON-RPC 2.0 rules in its doc comment accept (as
// judged here from encoding/json's view of the object), and that whatever it
// accepts re-encodes to one line that decodes to the same kind and id.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, in []byte) {
		kept := bytes.Clone(in)
		m, err := Decode(in)
		if !bytes.Equal(in, kept) {
			t.Fatalf("Decode changed its input from %q to %q", kept, in)
		}
		wantKind, wantID := kindPerRule(in)
		if err != nil {
			if m != nil || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode(%q) = %+v, %v; a failure must be nil, ErrInvalid", in, m, err)
			}
			if wantKind != 0 {
				t.Fatalf("Decode(%q) failed (%v) but the rules make it a %v", in, err, wantKind)
			}
			return
		}
		if m.Kind() != wantKind || m.ID.Key() != wantID {
			t.Fatalf("Decode(%q) = %v with id %s; the rules make it %v with id key %q", in, m.Kind(), m.ID, wantKind, wantID)
		}
		if c := ClassifyLine(in); c != ClassMessage {
			t.Fatalf("Decode accepted %q, which classifies as %v", in, c)
		}
		enc, err := Encode(m)
		if err != nil {
			t.Fatalf("Encode of decoded %q: %v", in, err)
		}
		if bytes.ContainsAny(enc, "\r\n") || ClassifyLine(enc) != ClassMessage {
			t.Fatalf("Encode of decoded %q gave %q, not a one-line message", in, enc)
		}
		back, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode(Encode(Decode(%q))) = %v; encoded %q", in, err, enc)
		}
		if back.Kind() != m.Kind() || back.ID.Key() != m.ID.Key() || back.ID.IsString() != m.ID.IsString() {
			t.Fatalf("%q: decoded as %v %s, after re-encoding %q as %v %s",
				in, m.Kind(), m.ID, enc, back.Kind(), back.ID)
		}
		if again, _ := Encode(back); !bytes.Equal(again, enc) {
			t.Fatalf("encoding is not stable: %q then %q", enc, again)
		}
	})
}

// kindPerRule says what the rules make of b: its kind and the key of its id
// (an integer as written, a string as encoding/json writes it, "" for none),
// or kind 0 when b is not a valid message. An object with "jsonrpc":"2.0"
// is a request (a non-empty string method and an integer or string id), a
// notification (a method and no id), a result (a result, no error, an
// integer or string id) or an error (an error object with an integer code
// and a string message, no result, an id that may be null or absent);
// params, when present, are an object or an array.
func kindPerRule(b []byte) (Kind, string) {
	var fields map[string]json.RawMessage
	if !bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{")) || json.Unmarshal(b, &fields) != nil {
		return 0, ""
	}
	if v, ok := jsonValue(fields["jsonrpc"]).(string); !ok || v != "2.0" {
		return 0, ""
	}
	rawID, hasID := fields["id"]
	id, idOK := idKeyPerRule(rawID)
	_, hasResult := fields["result"]
	rawErr, hasErr := fields["error"]
	if rawMethod, ok := fields["method"]; ok {
		method, _ := jsonValue(rawMethod).(string)
		if raw, ok := fields["params"]; ok && !isObjectOrArray(raw) {
			return 0, ""
		}
		switch {
		case method == "" || hasResult || hasErr:
			return 0, ""
		case !hasID:
			return KindNotification, ""
		case idOK && id != "":
			return KindRequest, id
		}
		return 0, ""
	}
	switch {
	case hasResult == hasErr:
		return 0, ""
	case hasResult && idOK && id != "":
		return KindResult, id
	case hasErr && idOK && errorPerRule(rawErr):
		return KindError, id
	}
	return 0, ""
}

// idKeyPerRule returns the key of an id: "" for none or null, ok false for
// an id that is neither an integer nor a string.
func idKeyPerRule(raw json.RawMessage) (string, bool) {
	if raw == nil {
		return "", true
	}
	switch v := jsonValue(raw).(type) {
	case nil:
		return "", true
	case string:
		b, _ := json.Marshal(v)
		return string(b), true
	case json.Number:
		lit := v.String()
		if !bytes.ContainsAny([]byte(lit), ".eE") {
			if lit == "-0" {
				return "0", true
			}
			return lit, true
		}
		// By value: an integral number in any notation is that integer,
		// unless its exponent is past float64's.
		if i := strings.IndexAny(lit, "eE"); i >= 0 {
			if exp, err := strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+")); err != nil || exp > 308 || exp < -324 {
				return "", false
			}
		}
		if f, _, err := big.ParseFloat(lit, 10, 4096, big.ToNearestEven); err == nil && f.IsInt() && len(lit) <= 400 {
			n, _ := f.Int(nil)
			return n.String(), true
		}
	}
	return "", false
}

// errorPerRule: an object with an integer code that fits 64 bits and a
// string message.
func errorPerRule(raw json.RawMessage) bool {
	e, ok := jsonValue(raw).(map[string]any)
	if !ok {
		return false
	}
	code, ok := e["code"].(json.Number)
	if _, err := code.Int64(); !ok || err != nil || bytes.ContainsAny([]byte(code), ".eE") {
		return false
	}
	_, ok = e["message"].(string)
	return ok
}

func isObjectOrArray(raw json.RawMessage) bool {
	switch jsonValue(raw).(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// jsonValue decodes raw with numbers kept as written; nil when raw is absent
// or null.
func jsonValue(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	return v
}
