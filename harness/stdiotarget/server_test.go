package stdiotarget

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/transcript"
)

// TestStdioServerReportsItsExit starts a server that writes a secret to
// stderr and a line to stdout, then exits 3: the log holds the lines and
// the exit (status, stderr size), never the stderr bytes.
func TestStdioServerReportsItsExit(t *testing.T) {
	const secret = "mcpconform-secret-9c1"
	var log transcript.Log
	s, err := Start([]string{"sh", "-c", "read line; echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}'; echo " + secret + " >&2; exit 3"},
		Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Kill()
	if err := s.Send([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	for range s.Messages() {
	}
	report := s.ExitReport(2 * time.Second)
	if !strings.Contains(report, "exit status 3") || !strings.Contains(report, "22 bytes to stderr") {
		t.Errorf("exit report %q", report)
	}
	var lines []string
	for _, e := range log.Entries() {
		lines = append(lines, e.Dir+" "+e.Line)
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{`c2s {"jsonrpc":"2.0","id":1,"method":"ping"}`, `s2c {"jsonrpc":"2.0","id":1,"result":{}}`,
		"ended (exit status 3) on its own", "it wrote 22 bytes to stderr"} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text+report, secret) {
		t.Errorf("the stderr bytes reached the log or the report:\n%s\n%s", text, report)
	}
	s.Kill()
	if again := s.ExitReport(0); again != "" {
		t.Errorf("after Kill, ExitReport is %q, want empty (the harness ended it)", again)
	}
}
