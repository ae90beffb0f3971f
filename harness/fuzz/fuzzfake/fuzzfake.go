// Package fuzzfake is a fake stdio MCP server with two planted defects of
// different shapes, for the tests of the fuzzer's grouping: it answers a
// ping whose id is a number twice (one-response), and exits on
// resources/list (alive). Importing it registers the subcommand Command
// with selfexec; only tests import it.
package fuzzfake

import (
	"bufio"
	"encoding/json"
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
		var m request
		if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
			continue
		}
		if m.Method == "resources/list" {
			return 3 // planted: the server exits on a request it does not expect
		}
		m.Params.ProtocolVersion = "" // it speaks 2025-11-25 alone
		if reply(out, m) && m.Method == "ping" && m.ID[0] != '"' {
			reply(out, m) // planted: a numeric ping answered twice
		}
	}
	return 0
}
