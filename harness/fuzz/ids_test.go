package fuzz

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// idServerCommand is a fake stdio server for the id tests: it answers
// every request with an empty result, writing the request's id back as
// its mode says: "echo" as written (-0 stays -0, 1.5 stays 1.5), "value"
// as a parser that reads numbers into int64 or float64 writes it (-0 is
// 0, an integer past 2^63 wraps, 1.5 stays 1.5).
const idServerCommand = "fuzz-test-id-server"

func init() { selfexec.Register(idServerCommand, idServer) }

func idServer(args []string) int {
	mode := "echo"
	if len(args) > 0 {
		mode = args[0]
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Method == "" || m.ID == nil {
			continue
		}
		id := string(m.ID)
		if mode == "value" {
			var f float64
			if json.Unmarshal(m.ID, &f) == nil {
				switch {
				case f > math.MaxInt64:
					id = fmt.Sprint(int64(math.MinInt64))
				case f == math.Trunc(f):
					id = fmt.Sprint(int64(f))
				}
			}
		}
		result := `{}`
		if m.Method == "initialize" {
			result = `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"ids","version":"1"}}`
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
	}
	return 0
}

// TestIDsComparedByValue: an answer with the id the request carried, by
// value, keeps the one-response invariant (-0 answered as 0, 1.0 as 1);
// a request with an id the spec forbids, or past the range a parser may
// limit, is judged by the error reply's rule alone: a SHOULD, never a
// finding, however the server answers it.
func TestIDsComparedByValue(t *testing.T) {
	c, err := os.ReadFile("../../corpus/edge-ids.case")
	if err != nil {
		t.Fatal(err)
	}
	edge, err := ParseCase("edge-ids.case", strings.NewReader(string(c)))
	if err != nil {
		t.Fatal(err)
	}
	frames := append(edge.Frames, frames(
		`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":7.0,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":98765432109876543210,"method":"ping"}`,
	)...)
	for _, mode := range []string{"echo", "value"} {
		out, err := Execute(Target{Command: selfexec.Command(idServerCommand, mode)}, frames, ExecOptions{Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if out.Violation != nil {
			t.Errorf("%s: %v", mode, out.Violation)
		}
		if len(out.Warnings) != 1 || out.Warnings[0].Invariant != ErrorReply {
			t.Errorf("%s: warnings %v, want the error reply's", mode, out.Warnings)
		}
	}
}

// wrappingServer answers every request with an id past int64's range
// under the id its int64 parser wraps it to (go-sdk v1.8.0 over HTTP), and
// every other request under its own id.
func wrappingServer([]string) int {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		id := string(m.ID)
		if len(id) > 19 && id[0] != '"' {
			id = "-9223372036854775808"
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", id)
	}
	return 0
}

func init() { selfexec.Register("fuzz-test-wrapping-ids", wrappingServer) }

// TestAReusedUnreadableIDMayComeBackWrapped: an id past 2^53-1 sent twice
// is two requests a parser may answer under its wrapped id, each a warning
// of the error reply (SHOULD), never a response to an id never sent.
func TestAReusedUnreadableIDMayComeBackWrapped(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`
	out, err := Execute(Target{Command: selfexec.Command("fuzz-test-wrapping-ids")}, frames(big, big), ExecOptions{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if out.Violation != nil {
		t.Fatalf("broke %v", out.Violation)
	}
	if len(out.Warnings) == 0 {
		t.Error("no error-reply warning for the wrapped ids")
	}
}
