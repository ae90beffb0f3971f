package fuzzfake

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// RealCommand is the subcommand that runs a fake reproducing one defect
// the fuzzer found in a published server, named by its first argument (a
// corpus case real-NAME.case replays against the fake NAME, so that go
// test replays the real findings without their servers or the network).
const RealCommand = "fuzz-fake-real"

// Real names the fakes of RealCommand, each with the server and behaviour
// it reproduces.
var Real = map[string]string{
	"gosdk-exit-on-bad-id":     "go-sdk v1.8.0 over stdio: the server exits on a request whose id is an object or an array, or whose jsonrpc is no string",
	"gosdk-stream-decoder":     "go-sdk v1.8.0 over stdio: the server reads stdin as a JSON stream, not as lines, so a truncated message swallows the lines after it",
	"everything-batch-2025-03": "server-everything 2026.8.31 over stdio: in a 2025-03-26 session a batch gets no answer",
	"mcpgo-batch-2025-03":      "mcp-go v1.2.1 over stdio: in a 2025-03-26 session a batch is answered with one parse error (-32700, id null) and its requests never",
}

func init() { selfexec.Register(RealCommand, serveReal) }

// reply answers request m (initialize with the version it asks for when
// the fakes speak it, tools/list with no tool, anything else with {}) and
// reports whether m was a request; a notification gets nothing.
func reply(out *bufio.Writer, m request) bool {
	if m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return false
	}
	result := `{}`
	switch m.Method {
	case "initialize":
		version := m.Params.ProtocolVersion
		if version != "2025-03-26" && version != "2025-06-18" {
			version = "2025-11-25"
		}
		result = fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"fuzz-fake","version":"1"}}`, version)
	case "tools/list":
		result = `{"tools":[]}`
	}
	fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result)
	out.Flush()
	return true
}

// request is what the fakes read of a message.
type request struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"params"`
}

func serveReal(args []string) int {
	if len(args) != 1 || Real[args[0]] == "" {
		fmt.Fprintf(os.Stderr, "%s: give one of the fakes of fuzzfake.Real\n", RealCommand)
		return 2
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	if args[0] == "gosdk-stream-decoder" {
		// One JSON value after another, whatever the lines: a value cut
		// short takes the next line's message as its continuation.
		dec := json.NewDecoder(os.Stdin)
		for {
			var m request
			if err := dec.Decode(&m); err == io.EOF {
				return 0
			} else if err != nil {
				return 1
			}
			reply(out, m)
		}
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 0 && line[0] == '[' {
			// A batch is not read, in any version: mcpgo-batch-2025-03
			// answers it as unparseable, everything-batch-2025-03 not at all.
			if args[0] == "mcpgo-batch-2025-03" {
				fmt.Fprintln(out, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Failed to parse message"}}`)
				out.Flush()
			}
			continue
		}
		var m request
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		if args[0] == "gosdk-exit-on-bad-id" && (badID(m.ID) || (len(m.JSONRPC) > 0 && m.JSONRPC[0] != '"')) {
			return 1
		}
		reply(out, m)
	}
	return 0
}

func badID(id json.RawMessage) bool {
	return len(id) > 0 && (id[0] == '{' || id[0] == '[')
}
