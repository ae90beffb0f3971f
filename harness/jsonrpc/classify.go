package jsonrpc

import (
	"bytes"
	"encoding/json"
)

// LineClass is what one stdout line of a stdio server is (NG-01, NG-02).
type LineClass int

// The line classes. Only ClassText may be skipped; ClassDamaged and
// ClassNonObject end a session.
const (
	// ClassMessage: the line is one JSON object (it may still fail strict decoding).
	ClassMessage LineClass = iota + 1
	// ClassBatch: the line is a non-empty JSON array of objects.
	ClassBatch
	// ClassText: not JSON and could not be a damaged message; skippable.
	ClassText
	// ClassDamaged: starts with '{', with '[' that opens a batch, or mentions
	// "jsonrpc", and does not parse.
	ClassDamaged
	// ClassNonObject: valid JSON that is neither an object nor a batch
	// (42, "x", null, true, [], [1]).
	ClassNonObject
)

func (c LineClass) String() string {
	switch c {
	case ClassMessage:
		return "message"
	case ClassBatch:
		return "batch"
	case ClassText:
		return "text"
	case ClassDamaged:
		return "damaged"
	case ClassNonObject:
		return "non-object JSON"
	}
	return "invalid"
}

var (
	utf8BOM     = []byte{0xEF, 0xBB, 0xBF}
	jsonrpcWord = []byte("jsonrpc")
)

// TrimLine removes the line's leading and trailing white space and a leading
// UTF-8 byte order mark: what remains is what the classifier and the decoder see.
func TrimLine(line []byte) []byte {
	line = trimSpace(line)
	if bytes.HasPrefix(line, utf8BOM) {
		line = trimSpace(line[len(utf8BOM):])
	}
	return line
}

// ClassifyLine says what a stdout line is. The line is given without its
// newline; leading and trailing white space and a leading BOM are ignored.
//
// An empty line is text. A line that is valid JSON is a message (object),
// a batch (non-empty array of objects) or non-object JSON (anything else).
// A line that is not valid JSON is damaged when it starts with '{', starts
// with a '[' that opens a batch ('[' then optional white space then '{', ']'
// or the end of the line), or contains "jsonrpc" anywhere; otherwise it is text.
func ClassifyLine(line []byte) LineClass {
	t := TrimLine(line)
	if len(t) == 0 {
		return ClassText
	}
	if mayStartJSON(t[0]) && json.Valid(t) {
		switch t[0] {
		case '{':
			return ClassMessage
		case '[':
			if isBatchOfObjects(t) {
				return ClassBatch
			}
		}
		return ClassNonObject
	}
	if t[0] == '{' || opensBatch(t) || bytes.Contains(t, jsonrpcWord) {
		return ClassDamaged
	}
	return ClassText
}

// mayStartJSON reports whether c can begin a JSON value.
func mayStartJSON(c byte) bool {
	switch c {
	case '{', '[', '"', '-', 't', 'f', 'n':
		return true
	}
	return c >= '0' && c <= '9'
}

// opensBatch reports whether t starts with '[' followed, after optional white
// space, by '{', ']' or nothing.
func opensBatch(t []byte) bool {
	if len(t) == 0 || t[0] != '[' {
		return false
	}
	rest := trimSpace(t[1:])
	return len(rest) == 0 || rest[0] == '{' || rest[0] == ']'
}

// isBatchOfObjects reports whether valid JSON array t is non-empty and holds
// only objects.
func isBatchOfObjects(t []byte) bool {
	var elems []json.RawMessage
	if json.Unmarshal(t, &elems) != nil || len(elems) == 0 {
		return false
	}
	for _, e := range elems {
		if firstByte(e) != '{' {
			return false
		}
	}
	return true
}
