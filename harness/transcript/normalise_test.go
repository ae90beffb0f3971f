package transcript

import (
	"strings"
	"testing"
)

func TestNormaliseCanonicalisesAndMasksIDs(t *testing.T) {
	got := Normalise([]Entry{
		{ClientToServer, `{"jsonrpc":"2.0", "method":"initialize","id":7,"params":{"clientInfo":{"name":"c","version":"1.2.3"},"protocolVersion":"2025-06-18"}}`},
		{ServerToClient, `{"result":{"serverInfo":{"version":"9.9","name":"s"}},"id":7,"jsonrpc":"2.0"}`},
		{ClientToServer, `{"jsonrpc":"2.0","id":"7","method":"tools/call","params":{"_meta":{"progressToken":"abc"},"name":"slow"}}`},
		{ServerToClient, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"abc","progress":1}}`},
		{ClientToServer, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"7","reason":"x"}}`},
		{ClientToServer, `{"jsonrpc":"2.0","id":8,"method":"ping"}`},
		{ServerToClient, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
	})
	want := []string{
		`c2s {"id":"<n1>","jsonrpc":"2.0","method":"initialize","params":{"clientInfo":{"name":"c","version":"<version>"},"protocolVersion":"2025-06-18"}}`,
		`s2c {"id":"<n1>","jsonrpc":"2.0","result":{"serverInfo":{"name":"s","version":"<version>"}}}`,
		`c2s {"id":"<s1>","jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"progressToken":"<token-s1>"},"name":"slow"}}`,
		`s2c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progressToken":"<token-s1>"}}`,
		`c2s {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"<reason>","requestId":"<s1>"}}`,
		`c2s {"id":"<n2>","jsonrpc":"2.0","method":"ping"}`,
		`s2c {"error":{"code":-32700,"message":"Parse error"},"id":null,"jsonrpc":"2.0"}`,
	}
	assertLines(t, got, want)
}

func TestNormaliseIsStableAcrossRuns(t *testing.T) {
	run := func(id, session, when string) []string {
		return Normalise([]Entry{
			{Note, "POST /mcp Mcp-Session-Id: " + session + " at " + when},
			{ClientToServer, `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`},
			{ServerToClient, `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`},
			{ServerToClient, `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":{"timestamp":1712345678,"msg":"at ` + when + `"}}}`},
		})
	}
	a := run("1", "0f3c9a", "2026-01-02T03:04:05.123Z")
	b := run("99", "77aa00", "2027-12-31 23:59:59+02:00")
	assertLines(t, a, b)
	if !strings.Contains(a[0], "Mcp-Session-Id: <session1>") || !strings.Contains(a[0], "<time>") {
		t.Errorf("note not masked: %q", a[0])
	}
}

func TestNormaliseBatchesAndNonJSON(t *testing.T) {
	got := Normalise([]Entry{
		{ClientToServer, `[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`},
		{ServerToClient, `starting server v1.0 on /tmp/secret-path`},
		{ServerToClient, `{"jsonrpc":"2.0","id":`},
		{ServerToClient, `42`},
		{ServerToClient, ``},
		{ClientToServer, `{"a":1} {"b":2}`},
		{ServerToClient, `{"jsonrpc":"2.0","method":"x","params":{"html":"<b>&</b>","n":1.50}}`},
	})
	want := []string{
		`c2s [{"id":"<s1>","jsonrpc":"2.0","method":"ping"},{"id":"<n1>","jsonrpc":"2.0","method":"ping"}]`,
		`s2c text (40 bytes): starting server v1.0 on /tmp/secret-path`,
		`s2c text (22 bytes): {"jsonrpc":"2.0","id":`,
		`s2c text (2 bytes): 42`,
		`s2c text (0 bytes)`,
		`c2s text (15 bytes): {"a":1} {"b":2}`,
		`s2c {"jsonrpc":"2.0","method":"x","params":{"html":"<b>&</b>","n":1.50}}`,
	}
	assertLines(t, got, want)
}

func TestNormaliseKeepsNumberAndStringIDsApart(t *testing.T) {
	got := Normalise([]Entry{
		{ClientToServer, `{"jsonrpc":"2.0","id":2,"method":"ping"}`},
		{ClientToServer, `{"jsonrpc":"2.0","id":"2","method":"ping"}`},
		{ClientToServer, `{"jsonrpc":"2.0","id":3,"method":"ping"}`},
		{ClientToServer, `{"jsonrpc":"2.0","id":true,"method":"ping"}`},
	})
	for i, want := range []string{`"id":"<n1>"`, `"id":"<s1>"`, `"id":"<n2>"`, `"id":true`} {
		if !strings.Contains(got[i], want) {
			t.Errorf("line %d = %q, want it to contain %s", i, got[i], want)
		}
	}
}

func TestNormaliseOnlyMasksMessageLevelIDs(t *testing.T) {
	got := Normalise([]Entry{{ServerToClient, `{"jsonrpc":"2.0","id":1,"result":{"id":5,"items":[{"id":"x"}]}}`}})
	want := `s2c {"id":"<n1>","jsonrpc":"2.0","result":{"id":5,"items":[{"id":"x"}]}}`
	assertLines(t, got, []string{want})
}

func TestNormaliseMasksSessionMemberAndAuthorization(t *testing.T) {
	got := Normalise([]Entry{
		{Note, `{"headers":{"Mcp-Session-Id":"s-123","Authorization":"Bearer tok"}}`},
		{ClientToServer, `{"headers":{"mcp-session-id":"s-123","authorization":"Bearer tok"}}`},
		{Note, "authorization: Bearer tok"},
	})
	want := []string{
		`note {"headers":{"Mcp-Session-Id":"<session1>","Authorization":"***"}}`,
		`c2s {"headers":{"authorization":"***","mcp-session-id":"<session1>"}}`,
		`note Authorization: ***`,
	}
	assertLines(t, got, want)
}

func assertLines(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

// TestNormaliseSessionMaskLeavesAuthorizationMasked: a session id read from
// a note runs to the next space, so it could take an Authorization header's
// name (Mcp-Session-Id=Authorization: …) and leave its value unmasked.
func TestNormaliseSessionMaskLeavesAuthorizationMasked(t *testing.T) {
	const token = "tok-planted-7f3a"
	got := Normalise([]Entry{
		{Note, "Mcp-Session-Id=Authorization: Bearer " + token},
		{Note, `{"Mcp-Session-Id":"Authorization: Bearer ` + token + `"}`},
		{Note, "Mcp-Session-Id:Authorization:Basic " + token},
		{Note, `{"Mcp-Session-Id":"s-1","Authorization":["Bearer ` + token + `"]}`},
		{ClientToServer, `{"headers":{"Authorization":["Bearer ` + token + `"]}}`},
		{Note, "POST http://user:" + token + "@127.0.0.1:1/mcp"},
	})
	for _, line := range got {
		if strings.Contains(line, token) {
			t.Errorf("the token survived: %s", line)
		}
	}
	if want := `c2s {"headers":{"Authorization":["***"]}}`; got[4] != want {
		t.Errorf("got %s, want %s", got[4], want)
	}
}

// TestMessageNamesEventIDsAsTheTranscript: a check's message names an SSE
// event id by the placeholder its transcript shows, and a Last-Event-ID
// the transcript never showed by the next one, so that two runs of the
// same behaviour give the same message.
func TestMessageNamesEventIDsAsTheTranscript(t *testing.T) {
	run := func(a, b, c string) (string, []string) {
		nz := NewNormaliser()
		lines := nz.Lines([]Entry{
			{Note, `SSE event (id "` + a + `")`},
			{Note, `SSE event (id "` + b + `", event "message")`},
		})
		return nz.Message(`event id "` + b + `" appears on POST stream 1 and on the GET stream; the client resumed with Last-Event-ID: "` + c + `"`), lines
	}
	msg, lines := run("7-1", "7-2", "9-9")
	want := `event id "<event2>" appears on POST stream 1 and on the GET stream; the client resumed with Last-Event-ID: "<event3>"`
	if msg != want || lines[1] != `note SSE event (id "<event2>", event "message")` {
		t.Errorf("message %q\nlines %q", msg, lines)
	}
	if again, _ := run("12-1", "12-2", "3-3"); again != msg {
		t.Errorf("another run's ids give %q, want %q", again, msg)
	}
}
