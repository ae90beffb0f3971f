package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzClassifyLine checks the NG-01/NG-02 invariants on arbitrary lines.
// The oracles below are written from the rule, not from the implementation.
func FuzzClassifyLine(f *testing.F) {
	for _, tc := range classifyCases {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c := ClassifyLine(line)
		trimmed := TrimLine(line)
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
		if !bytes.HasPrefix(bytes.TrimLeft(line, " \t\r\n"), []byte(bom)) {
			if got := ClassifyLine(concat(bom, line, "")); got != c {
				t.Fatalf("%q is %v but after a BOM %v", line, c, got)
			}
		}
	})
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

// FuzzDecode checks that Decode never panics, fails only with ErrInvalid, and
// that whatever it accepts re-encodes to one line that decodes to the same
// kind and id.
func FuzzDecode(f *testing.F) {
	for _, tc := range validMessages {
		f.Add([]byte(tc.json))
	}
	for _, tc := range invalidMessages {
		f.Add([]byte(tc.json))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := Decode(in)
		if err != nil {
			if m != nil || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode(%q) = %+v, %v; a failure must be nil, ErrInvalid", in, m, err)
			}
			return
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
