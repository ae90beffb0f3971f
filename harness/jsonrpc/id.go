package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// ID is a JSON-RPC request id. It keeps its JSON type: the number 2 and the
// string "2" are different ids (NG-12). A number is kept by its value, as
// an integer literal: -0 is 0, and 1.0 and 1e0 are 1. The zero ID is "no id" (absent or null).
type ID struct {
	raw string // canonical JSON text: an integer literal or a quoted string; "" when absent
}

// IntID returns the numeric id n.
func IntID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// StringID returns the string id s.
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: string(b)}
}

// IsZero reports whether the id is absent or null.
func (id ID) IsZero() bool { return id.raw == "" }

// IsString reports whether the id is a JSON string.
func (id ID) IsString() bool { return len(id.raw) > 0 && id.raw[0] == '"' }

// Key is a map key that keeps the JSON type: IntID(2).Key() != StringID("2").Key().
func (id ID) Key() string { return id.raw }

// String returns the id as JSON text (`2` or `"2"`), or "null" when absent.
func (id ID) String() string {
	if id.raw == "" {
		return "null"
	}
	return id.raw
}

// MarshalJSON writes the id with its original JSON type.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON accepts an integer, a string or null (JR-03, JR-04 are
// enforced by the decoder, which knows whether a null id is allowed).
func (id *ID) UnmarshalJSON(b []byte) error {
	parsed, err := parseID(b)
	if err != nil {
		return err
	}
	*id = parsed
	return nil
}

// ErrBadID is returned for ids that are neither an integer nor a string.
var ErrBadID = errors.New("id must be a string or an integer")

func parseID(b []byte) (ID, error) {
	b = trimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		return ID{}, nil
	}
	switch {
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return ID{}, fmt.Errorf("%w: %v", ErrBadID, err)
		}
		return StringID(s), nil
	case isIntegerLiteral(b):
		if string(b) == "-0" {
			return ID{raw: "0"}, nil // the same integer as 0
		}
		return ID{raw: string(b)}, nil
	default:
		if n, ok := integralValue(b); ok {
			return ID{raw: n}, nil
		}
		return ID{}, fmt.Errorf("%w, got %.40s", ErrBadID, b)
	}
}

// integralValue reads b, a JSON number written with a fraction or an
// exponent, by value, and returns it as an integer literal when it is one:
// 1.0 and 1e3 are the integers 1 and 1000, as JSON Schema (draft-07 and
// 2020-12 alike, the drafts of the specification's schemas, which type
// RequestId "string" or "integer") counts any number with a zero
// fractional part an integer. A fractional value (1.5) is no integer
// (JR-03); neither is one whose exponent is past float64's, which no
// parser reads as written.
func integralValue(b []byte) (string, bool) {
	if len(b) == 0 || len(b) > 400 || !(b[0] == '-' || b[0] >= '0' && b[0] <= '9') || !json.Valid(b) {
		return "", false
	}
	if i := bytes.IndexAny(b, "eE"); i >= 0 {
		exp, err := strconv.Atoi(strings.TrimPrefix(string(b[i+1:]), "+"))
		if err != nil || exp > 308 || exp < -324 {
			return "", false
		}
	}
	r, ok := new(big.Rat).SetString(string(b))
	if !ok || !r.IsInt() {
		return "", false
	}
	return r.Num().String(), true
}

// isIntegerLiteral reports whether b is a JSON number without fraction or
// exponent: -?(0|[1-9][0-9]*).
func isIntegerLiteral(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || (b[0] == '0' && len(b) > 1) {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
