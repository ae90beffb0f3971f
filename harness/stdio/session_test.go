package stdio

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

const (
	msg1    = `{"jsonrpc":"2.0","method":"m1"}` + "\n"
	msgLast = `{"jsonrpc":"2.0","method":"last"}` + "\n"
)

// TestTextBetweenMessagesLosesNothing: NG-01, NG-04, NG-12 over a real pipe.
func TestTextBetweenMessagesLosesNothing(t *testing.T) {
	cfg, report := testConfig(serverArgv(
		"out:"+q("starting up SECRET\n"),
		"out:"+q(msg1),
		"out:"+q("\r\n"),
		"out:"+q(`[{"jsonrpc":"2.0","method":"b1"},{"jsonrpc":"2.0","id":"7","result":{}}]`+"\n"),
		"out:"+q("  still logging\n"),
		"out:"+q(msgLast),
		"waiteof")...)
	c := start(t, cfg)
	var got []string
	for range 4 {
		m := next(t, c)
		got = append(got, m.Method+m.ID.String())
	}
	if want := `m1null b1null "7" lastnull`; strings.Join(got, " ") != want {
		t.Fatalf("messages %q, want %s", got, want)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	r := report.String()
	if strings.Count(r, "\n") != 1 || !strings.Contains(r, "(line of 18 bytes)") || strings.Contains(r, "SECRET") {
		t.Fatalf("report %q: want one line giving the first line's length and not its bytes", r)
	}
}

// TestBudgetsOverStdout: NG-03 at and one past each limit, with five text
// lines of 12 bytes (60 bytes) before a message.
func TestBudgetsOverStdout(t *testing.T) {
	tests := []struct {
		name     string
		lines    int
		bytes    int64
		wantFail bool
	}{
		{"line budget exactly", 5, 1000, false},
		{"line budget one past", 4, 1000, true},
		{"byte budget exactly", 100, 60, false},
		{"byte budget one past", 100, 59, true},
		{"line budget 0", 0, 1000, true},
		{"byte budget 0", 100, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, _ := testConfig(serverArgv("outn:5:"+q("banner line\n"), "out:"+q(msgLast), "waiteof")...)
			cfg.MaxStdoutTextLines, cfg.MaxStdoutTextBytes = tt.lines, tt.bytes
			c := start(t, cfg)
			if tt.wantFail {
				wantEndsWith(t, c, failure.ErrProtocol, "budget")
				return
			}
			if m := next(t, c); m.Method != "last" {
				t.Fatalf("got %q, want the message after the text", m.Method)
			}
		})
	}
}

// TestDamagedLineEndsTheSessionAndTearsDown: NG-02; the process is torn
// down in the background, so a later Close only waits for the reap.
func TestDamagedLineEndsTheSessionAndTearsDown(t *testing.T) {
	record := t.TempDir() + "/record"
	cfg, _ := testConfig(serverArgv("record:"+record, "out:"+q(`{"jsonrpc":"2.0","id":1,"result":{"SECRET`+"\n"), "waiteof")...)
	c := start(t, cfg)
	err := wantEndsWith(t, c, failure.ErrProtocol, "stdout line of 41 bytes is damaged")
	if strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("failure %q quotes the line", err)
	}
	if _, ok := <-c.Incoming(); ok {
		t.Fatal("a message was delivered after the damaged line")
	}
	if !waitGone(c.PID(), testWait) {
		t.Fatal("the server still runs after the protocol failure")
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close after a protocol failure: %v", err)
	}
	if _, ok := readRecord(t, record)["eof"]; !ok {
		t.Fatal("the server's stdin was not closed first")
	}
	wantKind(t, c.Err(), failure.ErrProtocol)
}

func TestLineLongerThanMaxLineBytes(t *testing.T) {
	cfg, _ := testConfig(serverArgv("outn:1000:"+q("x"), "out:"+q("\n"), "outn:1001:"+q("y"), "out:"+q("\n"), "waiteof")...)
	cfg.MaxLineBytes = 1000
	c := start(t, cfg)
	wantEndsWith(t, c, failure.ErrProtocol, "stdout line longer than 1000 bytes")
}

func TestInvalidMessageEndsTheSession(t *testing.T) {
	cfg, _ := testConfig(serverArgv("out:"+q(`{"jsonrpc":"1.0","id":1,"result":{}}`+"\n"), "waiteof")...)
	c := start(t, cfg)
	wantEndsWith(t, c, failure.ErrProtocol, "not a valid JSON-RPC message")
}

func TestServerExitIsAConnectionFailure(t *testing.T) {
	cfg, _ := testConfig(serverArgv("out:"+q(msg1), "exit:3")...)
	c := start(t, cfg)
	if m := next(t, c); m.Method != "m1" {
		t.Fatalf("got %q, want m1 before the exit", m.Method)
	}
	wantEndsWith(t, c, failure.ErrConnection, "server exited (exit status 3)")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestIgnoreExitMutantDoesNotEnd: the mutant leaves the session open after
// the server exits; only Close ends it.
func TestIgnoreExitMutantDoesNotEnd(t *testing.T) {
	cfg, _ := testConfig(serverArgv("exit:0")...)
	cfg.Mutant = mutant.IgnoreExit
	c := start(t, cfg)
	if !waitGone(c.PID(), testWait) {
		t.Fatal("server did not exit")
	}
	if c.Err() != nil {
		t.Fatalf("IgnoreExit ended the session: %v", c.Err())
	}
	_ = c.Close()
	wantKind(t, c.Err(), failure.ErrShutdown)
}

// echoed sends m to an echo server and returns the line it received.
func echoed(t *testing.T, c *Client, m *jsonrpc.Message) string {
	t.Helper()
	if err := c.Send(m); err != nil {
		t.Fatalf("Send: %v", err)
	}
	var lines []string
	for {
		got := next(t, c)
		var p struct{ Line string }
		if err := json.Unmarshal(got.Params, &p); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, p.Line)
		if strings.TrimSpace(p.Line) == "}" || strings.HasPrefix(p.Line, "{\"") {
			return strings.Join(lines, "")
		}
	}
}

// TestSendWritesOneCompactLine: ST-02, ST-04; StdinBlankLines breaks it.
func TestSendWritesOneCompactLine(t *testing.T) {
	m, err := jsonrpc.NewRequest(jsonrpc.IntID(7), "tools/call", map[string]any{"name": "x", "arguments": map[string]any{"text": "a\nb"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"text":"a\nb"},"name":"x"}}` + "\n"
	cfg, _ := testConfig(serverArgv("echo")...)
	c := start(t, cfg)
	if got := echoed(t, c, m); got != want {
		t.Errorf("server read %q, want %q", got, want)
	}
	_ = c.Close()

	cfg.Mutant = mutant.StdinBlankLines
	c = start(t, cfg)
	echoed(t, c, m)
	var p struct{ Line string }
	if err := json.Unmarshal(next(t, c).Params, &p); err != nil || strings.TrimSpace(p.Line) != "" {
		t.Errorf("mutant %s: the server read %q after the message, want an empty line", cfg.Mutant, p.Line)
	}
	_ = c.Close()
}

func TestSendAfterTheEnd(t *testing.T) {
	ping, _ := jsonrpc.NewRequest(jsonrpc.IntID(1), "ping", nil)

	cfg, _ := testConfig(serverArgv("waiteof")...)
	c := start(t, cfg)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	wantKind(t, c.Send(ping), failure.ErrShutdown)

	cfg, _ = testConfig(serverArgv("out:"+q("{broken\n"), "waiteof")...)
	c = start(t, cfg)
	ended(t, c)
	wantKind(t, c.Send(ping), failure.ErrConnection)
}

func TestCloseIsIdempotentAndSafeConcurrently(t *testing.T) {
	cfg, _ := testConfig(serverArgv("waiteof")...)
	c := start(t, cfg)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			if i == 0 {
				c.RequestCancelled()
			}
			errs[i] = c.Close()
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Close %d: %v", i, err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-c.Incoming(); ok {
		t.Fatal("Incoming delivered after Close")
	}
}

// TestIncomingClosesWhenTheSessionEnds: Incoming closes with Done, not
// after the teardown of a stubborn server.
func TestIncomingClosesWhenTheSessionEnds(t *testing.T) {
	cfg, _ := testConfig(serverArgv("ignoreterm", "out:"+q(ready), "waiteof", "sleep:20s")...)
	cfg.CancelGrace = 0
	cfg.ShutdownGrace = 300 * time.Millisecond
	c := startReady(t, cfg)
	c.RequestCancelled()
	wantEndsWith(t, c, failure.ErrCancelled)
	select {
	case _, ok := <-c.Incoming():
		if ok {
			t.Fatal("a message after the end")
		}
	case <-time.After(testWait):
		t.Fatal("Incoming still open after the end")
	}
	if processGone(c.PID()) {
		t.Fatal("the stubborn server is already gone; the test proves nothing")
	}
}

// TestDrainAfterEnd: once a line past MaxLineBytes has ended the session,
// the reference drains stdout, so the server finishes writing and reads its
// stdin to EOF; variant NoDrainAfterEnd stops reading, and the server,
// still writing, reads nothing before the shutdown's SIGTERM ends it.
func TestDrainAfterEnd(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.NoDrainAfterEnd} {
		rec := filepath.Join(t.TempDir(), "record")
		cfg, _ := testConfig(serverArgv("record:"+rec, "outn:1000000:"+q("x"), "out:"+q("\n"), "waiteof")...)
		cfg.MaxLineBytes = 1000
		cfg.Mutant = m
		if m == "" {
			// The drained server reads EOF and exits at once; the grace
			// only bounds a loaded machine's delay.
			cfg.ShutdownGrace = testWait
		}
		c := start(t, cfg)
		wantEndsWith(t, c, failure.ErrProtocol, "stdout line longer than 1000 bytes")
		_ = c.Close()
		events := readRecord(t, rec)
		if _, read := events["eof"]; read != (m == "") {
			t.Errorf("mutant %q: the server read its stdin to EOF: %v, want %v (events %v)", m, read, m == "", events)
		}
	}
}
