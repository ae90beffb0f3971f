// Package fuzzfake is a fake stdio MCP server with two planted defects of
// different shapes, for the tests of the fuzzer's grouping: it answers a
// ping whose id is a number twice (one-response), and exits on
// resources/list (alive). Importing it registers the subcommand Command
// with selfexec; only tests import it.
package fuzzfake

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// Command is the subcommand that runs the fake.
const Command = "fuzz-fake-two-bugs"

func init() { selfexec.Register(Command, serve) }

func serve([]string) int {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Method == "" || m.ID == nil || string(m.ID) == "null" {
			continue
		}
		result := `{}`
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fuzz-fake","version":"1"}}`
		case "tools/list":
			result = `{"tools":[]}`
		case "resources/list":
			return 3 // planted: the server exits on a request it does not expect
		}
		reply := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result)
		out.WriteString(reply)
		if m.Method == "ping" && m.ID[0] != '"' {
			out.WriteString(reply) // planted: a numeric ping answered twice
		}
		out.Flush()
	}
	return 0
}
