package jsonrpc

import (
	"bytes"
	"testing"
)

const bom = "\xEF\xBB\xBF"

// classifyCases pins every class and edge of ClassifyLine (NG-01, NG-02).
// FuzzClassifyLine uses the lines as its seed corpus.
var classifyCases = []struct {
	name string
	line string
	want LineClass
}{
	// Empty and white space: nothing to lose, so skippable text.
	{"empty", "", ClassText},
	{"spaces and tab", "  \t ", ClassText},
	{"lone CR of a CRLF line", "\r", ClassText},

	// Messages: one JSON object, whatever its members.
	{"result", `{"jsonrpc":"2.0","id":1,"result":{}}`, ClassMessage},
	{"surrounding white space", " \t{\"jsonrpc\":\"2.0\",\"method\":\"x\"}  \r", ClassMessage},
	{"BOM before message", bom + `{"jsonrpc":"2.0","method":"x"}`, ClassMessage},
	{"BOM then space before message", bom + "  {}", ClassMessage},
	{"space then BOM before message", "  " + bom + "{}", ClassMessage},
	{"empty object", `{}`, ClassMessage},
	{"object without jsonrpc", `{"id":1}`, ClassMessage},

	// Batches: a non-empty array of objects.
	{"batch of one", `[{"jsonrpc":"2.0","method":"x"}]`, ClassBatch},
	{"batch of two with spaces", `[ {} , { "a" : [1] } ]`, ClassBatch},

	// Valid JSON that is neither: fatal (NG-02).
	{"number", `42`, ClassNonObject},
	{"negative number", `-1`, ClassNonObject},
	{"exponent", `1.5e3`, ClassNonObject},
	{"string", `"x"`, ClassNonObject},
	{"string naming jsonrpc", `"jsonrpc"`, ClassNonObject},
	{"null", `null`, ClassNonObject},
	{"true", `true`, ClassNonObject},
	{"false", `false`, ClassNonObject},
	{"empty array", `[]`, ClassNonObject},
	{"empty array with space", `[ ]`, ClassNonObject},
	{"array of number", `[1]`, ClassNonObject},
	{"array of objects and a number", `[{},2]`, ClassNonObject},
	{"array of array", `[[{}]]`, ClassNonObject},
	{"BOM before number", bom + "7", ClassNonObject},

	// Damaged: could be a broken message, never skipped.
	{"open brace", `{`, ClassDamaged},
	{"truncated result", `{"jsonrpc":"2.0","id":1,"result":`, ClassDamaged},
	{"brace then prose", `{not json}`, ClassDamaged},
	{"two objects on a line", `{}{}`, ClassDamaged},
	{"BOM before truncated message", bom + `{"jsonrpc":`, ClassDamaged},
	{"open bracket alone", `[`, ClassDamaged},
	{"open bracket then brace", `[ {`, ClassDamaged},
	{"open bracket tab brace", "[\t{\"id\":", ClassDamaged},
	{"truncated batch", `[{"jsonrpc":"2.0","method":"x"},`, ClassDamaged},
	{"closed bracket then junk", `[ ]x`, ClassDamaged},
	{"jsonrpc in prose", `server speaks jsonrpc on stdio`, ClassDamaged},
	{"jsonrpc after a bracket", `[INFO] jsonrpc ready`, ClassDamaged},
	{"jsonrpc in an unterminated string", `"jsonrpc`, ClassDamaged},
	{"jsonrpc after invalid UTF-8", "\xff\xfe jsonrpc", ClassDamaged},

	// Text: not JSON and could not be a damaged message.
	{"banner", `Starting MCP server v1.2.3 on stdio`, ClassText},
	{"bracket that opens no batch", `[INFO] started`, ClassText},
	{"bracket then number, invalid", `[1, 2`, ClassText},
	{"date", `2025-01-01 start`, ClassText},
	{"number then prose", `42 is the answer`, ClassText},
	{"true then prose", `true story`, ClassText},
	{"null then prose", `null pointer`, ClassText},
	{"minus banner", `-- ready --`, ClassText},
	{"unterminated string", `"hello`, ClassText},
	{"closing brace first", `} done`, ClassText},
	{"jsonrpc in upper case", `JSONRPC over stdio`, ClassText},
	{"BOM before text", bom + "hello", ClassText},
	{"BOM alone", bom, ClassText},
	{"invalid UTF-8", "\xff\xfe\xc3\x28 log", ClassText},
}

func TestClassifyLine(t *testing.T) {
	for _, tc := range classifyCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ClassifyLine([]byte(tc.line)); got != tc.want {
				t.Errorf("ClassifyLine(%q) = %v, want %v", tc.line, got, tc.want)
			}
		})
	}
}

func TestClassifyLineDoesNotModifyInput(t *testing.T) {
	line := []byte(" " + bom + `{"jsonrpc":"2.0"} `)
	orig := bytes.Clone(line)
	ClassifyLine(line)
	if !bytes.Equal(line, orig) {
		t.Errorf("ClassifyLine changed its input to %q, want %q", line, orig)
	}
}

func TestTrimLine(t *testing.T) {
	cases := []struct {
		line, want string
	}{
		{"", ""},
		{" \t\r\n", ""},
		{"  {}  \r", "{}"},
		{bom + "{}", "{}"},
		{" " + bom + " {} ", "{}"},
		{bom + bom + "{}", bom + "{}"},
		{"a" + bom, "a" + bom},
		{"\f{}\v", "\f{}\v"}, // only JSON white space is trimmed
	}
	for _, tc := range cases {
		if got := TrimLine([]byte(tc.line)); string(got) != tc.want {
			t.Errorf("TrimLine(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestLineClassString(t *testing.T) {
	cases := map[LineClass]string{
		ClassMessage:   "message",
		ClassBatch:     "batch",
		ClassText:      "text",
		ClassDamaged:   "damaged",
		ClassNonObject: "non-object JSON",
		0:              "invalid",
	}
	for c, want := range cases {
		if got := c.String(); got != want {
			t.Errorf("LineClass(%d).String() = %q, want %q", int(c), got, want)
		}
	}
}
