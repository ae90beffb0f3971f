package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// This file is self-contained (standard library and package code only) so
// that OSS-Fuzz's native Go build, which compiles it without the package's
// other test files, can build it as it is.

// fuzzSecret is the credential planted in transcripts; the fuzzer's own text
// never holds it, so any occurrence in the output is a planted one that
// survived.
const fuzzSecret = "Zq9-planted-credential-7Wx"

// FuzzNormalise normalises arbitrary transcripts, some with credentials
// planted where the rules promise to mask them (an Authorization header in a
// note, an Authorization member of a JSON frame as a string or an array, such
// a header quoted inside a JSON string, a URL's userinfo), and checks what
// Normalise promises: one line per entry with its direction first, the same
// output for the same input, the input left alone, a frame that is a JSON
// object or array rendered as canonical JSON and any other frame as its
// length and a bounded excerpt of printable characters, notes that a second
// pass leaves as they are, no planted credential left, and an output of
// bounded size.
func FuzzNormalise(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string, plant []byte) {
		entries := fuzzEntries(text, plant)
		kept := slices.Clone(entries)
		out := Normalise(entries)
		if !slices.Equal(entries, kept) {
			t.Fatalf("Normalise changed its input:\n%q\nto\n%q", kept, entries)
		}
		if again := Normalise(kept); !slices.Equal(out, again) {
			t.Fatalf("two runs differ:\n%q\n%q", out, again)
		}
		if len(out) != len(entries) {
			t.Fatalf("%d entries gave %d lines", len(entries), len(out))
		}
		for i, e := range entries {
			checkNormalisedLine(t, e, out[i])
		}
		checkNotesSettle(t, entries)
	})
}

var fuzzDirs = []string{ClientToServer, ServerToClient, Note}

// fuzzEntries cuts text into entries at each newline; the first byte of a
// piece picks its direction and the rest is the line. plant[i] says whether
// and how entry i carries a credential.
func fuzzEntries(text string, plant []byte) []Entry {
	for strings.Contains(text, fuzzSecret) {
		text = strings.ReplaceAll(text, fuzzSecret, "")
	}
	var entries []Entry
	for i, piece := range strings.Split(text, "\n") {
		e := Entry{Dir: ClientToServer}
		if piece != "" {
			e = Entry{Dir: fuzzDirs[int(piece[0])%len(fuzzDirs)], Line: piece[1:]}
		}
		if i < len(plant) {
			e = plantSecret(e, plant[i])
		}
		entries = append(entries, e)
	}
	return entries
}

// plantSecret adds a credential to e in one of the forms Redact masks, or
// leaves e alone.
func plantSecret(e Entry, how byte) Entry {
	switch how % 6 {
	case 1:
		e.Dir, e.Line = Note, e.Line+"; Authorization: Bearer "+fuzzSecret
	case 2:
		e.Line = withMember(e.Line, "headers", map[string]string{"Authorization": "Bearer " + fuzzSecret})
	case 3:
		e.Line = withMember(e.Line, "log", "proxy-authorization: Basic "+fuzzSecret)
	case 4:
		e.Line = withMember(e.Line, "headers", map[string][]string{"Authorization": {"Bearer " + fuzzSecret}})
	case 5:
		e.Dir, e.Line = Note, e.Line+" http://user:"+fuzzSecret+"@127.0.0.1/mcp"
	}
	return e
}

// withMember returns line with member name set to v when line is a JSON
// object, and otherwise an object holding v and the line as a string.
func withMember(line, name string, v any) string {
	var obj map[string]any
	if json.Unmarshal([]byte(line), &obj) != nil || obj == nil {
		obj = map[string]any{"text": line}
	}
	obj[name] = v
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// checkNormalisedLine holds one output line to the rules for its entry.
func checkNormalisedLine(t *testing.T, e Entry, got string) {
	t.Helper()
	rest, ok := strings.CutPrefix(got, e.Dir+" ")
	if !ok {
		t.Fatalf("%q: line %q does not start with its direction", e, got)
	}
	if strings.Contains(got, fuzzSecret) {
		t.Fatalf("%q: a planted credential survived: %q", e, got)
	}
	if Redact(got) != got {
		t.Fatalf("%q: %q is not redacted: Redact makes it %q", e, got, Redact(got))
	}
	if limit := len(e.Dir) + 1 + 4*len(e.Line) + 64; len(got) > limit {
		t.Fatalf("%q: %d bytes of output from %d of input", e, len(got), len(e.Line))
	}
	if e.Dir == Note {
		return
	}
	trimmed := bytes.Trim([]byte(e.Line), " \t\r\n")
	structured := json.Valid(trimmed) && (trimmed[0] == '{' || trimmed[0] == '[')
	if !structured && !json.Valid([]byte(rest)) {
		checkTextFrame(t, e, rest)
		return
	}
	if canon, ok := canonicalJSON(rest); !ok || canon != rest {
		t.Fatalf("%q: a JSON frame became %q, which is not canonical JSON (%q)", e, rest, canon)
	}
}

// checkTextFrame holds the rendering of a frame that is not JSON to its
// promise: its length, then an excerpt of at most ExcerptBytes of it (each
// byte written as at most an escape of 6) and what was cut, with no
// character that a terminal would not show as itself.
func checkTextFrame(t *testing.T, e Entry, rest string) {
	t.Helper()
	head := fmt.Sprintf("text (%d bytes)", len(e.Line))
	excerpt, ok := strings.CutPrefix(rest, head+": ")
	if !ok && (rest != head || e.Line != "") {
		t.Fatalf("%q: a frame that is not JSON became %q, want %q and an excerpt", e, rest, head)
	}
	if len(excerpt) > 6*ExcerptBytes+64 {
		t.Fatalf("%q: an excerpt of %d bytes: %q", e, len(excerpt), excerpt)
	}
	for _, r := range excerpt {
		if !unicode.IsPrint(r) {
			t.Fatalf("%q: the excerpt %q shows %U as itself", e, excerpt, r)
		}
	}
}

// canonicalJSON re-renders one JSON value: keys sorted, no insignificant
// space, numbers as written, HTML characters left alone.
func canonicalJSON(s string) (string, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return "", false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return "", false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// checkNotesSettle normalises the notes alone, then their output again:
// masked times, numbered session ids and redacted headers are already what a
// second pass would make of them.
func checkNotesSettle(t *testing.T, entries []Entry) {
	t.Helper()
	var notes []Entry
	for _, e := range entries {
		if e.Dir == Note {
			notes = append(notes, e)
		}
	}
	once := Normalise(notes)
	again := make([]Entry, len(once))
	for i, line := range once {
		again[i] = Entry{Dir: Note, Line: strings.TrimPrefix(line, Note+" ")}
	}
	if twice := Normalise(again); !slices.Equal(once, twice) {
		t.Fatalf("notes do not settle:\n%q\n%q", once, twice)
	}
}
