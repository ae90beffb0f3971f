package fuzz

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/leanovate/gopter"
)

// garbage is a damaged or unusual frame and what it is.
type garbage struct {
	name  string
	frame Frame
}

// garbageGen makes the frame mutations: truncation at any offset, damaged
// and wrong-typed fields, ids of every JSON type, notifications carrying
// ids, responses to nothing, deep nesting, huge strings, invalid UTF-8,
// batches, blank lines, a byte-order mark, a raw newline inside a message.
// id is the id the next request would take, so that a frame that is still
// a request does not reuse one.
func drawGarbage(id any, p *gopter.GenParameters) garbage {
	idJSON, _ := json.Marshal(id)
	ping := func() string { return string(message(id, "ping", nil)) }
	g := func(name, body string) garbage { return garbage{name: name, frame: Frame{Body: []byte(body)}} }
	withID := func(format string) string { return fmt.Sprintf(format, idJSON) }
	call := withID(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"x","arguments":{"a":"b"}}}`)
	// A group is chosen, then one frame of it, built only then: some are
	// large.
	type group struct {
		weight int
		table  []func() garbage
	}
	cut := func() garbage {
		n := 1 + p.Rng.Intn(len(call)-1)
		return g(fmt.Sprintf("a tools/call cut after %d bytes", n), call[:n])
	}
	groups := []group{
		{4, []func() garbage{cut}},
		{4, []func() garbage{
			func() garbage { return g("jsonrpc 1.0", strings.Replace(ping(), `"2.0"`, `"1.0"`, 1)) },
			func() garbage { return g("no jsonrpc member", withID(`{"id":%s,"method":"ping"}`)) },
			func() garbage { return g("jsonrpc as a number", strings.Replace(ping(), `"2.0"`, `2`, 1)) },
			func() garbage { return g("method as a number", withID(`{"jsonrpc":"2.0","id":%s,"method":42}`)) },
			func() garbage { return g("method empty", withID(`{"jsonrpc":"2.0","id":%s,"method":""}`)) },
			func() garbage {
				return g("params a string", withID(`{"jsonrpc":"2.0","id":%s,"method":"ping","params":"x"}`))
			},
			func() garbage {
				return g("params a number", withID(`{"jsonrpc":"2.0","id":%s,"method":"tools/list","params":7}`))
			},
			func() garbage {
				return g("result and error both", withID(`{"jsonrpc":"2.0","id":%s,"result":{},"error":{"code":1,"message":"x"}}`))
			},
		}},
		{4, []func() garbage{
			func() garbage { return g("id 1.5", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`) },
			func() garbage { return g("id true", `{"jsonrpc":"2.0","id":true,"method":"ping"}`) },
			func() garbage { return g("id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`) },
			func() garbage { return g("id an object", `{"jsonrpc":"2.0","id":{"n":1},"method":"ping"}`) },
			func() garbage { return g("id an array", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`) },
			func() garbage { return g("id 1e400", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`) },
			func() garbage {
				return g("id past 2^64", `{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}`)
			},
			func() garbage { return g("id -0", `{"jsonrpc":"2.0","id":-0,"method":"ping"}`) },
		}},
		{2, []func() garbage{
			func() garbage {
				return g("a notification carrying an id", withID(`{"jsonrpc":"2.0","id":%s,"method":"notifications/initialized"}`))
			},
			func() garbage {
				return g("a notification of an unknown method", `{"jsonrpc":"2.0","method":"notifications/mcpconform/unknown"}`)
			},
			func() garbage {
				return g("a result answering nothing", withID(`{"jsonrpc":"2.0","id":%s,"result":{}}`))
			},
			func() garbage {
				return g("an error answering nothing", withID(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"x"}}`))
			},
		}},
		{2, []func() garbage{
			func() garbage { return g("params nested 100000 deep", deepFrame()) },
			func() garbage { return g("a 1 MiB string", hugeFrame()) },
			func() garbage {
				return g("invalid UTF-8", withID("{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\",\"params\":{\"a\":\"\xff\xfe\xc0\x80\"}}"))
			},
			func() garbage {
				return g("a lone surrogate escape", withID(`{"jsonrpc":"2.0","id":%s,"method":"ping","params":{"a":"\ud800"}}`))
			},
			func() garbage { return g("a byte-order mark", "\xef\xbb\xbf"+ping()) },
			func() garbage { return g("a raw newline inside the message", strings.Replace(ping(), `,`, ",\n", 1)) },
		}},
		{2, []func() garbage{
			func() garbage {
				return g("a batch of two pings", fmt.Sprintf(`[%s,%s]`, ping(), strings.Replace(ping(), `"method"`, `"x":1,"method"`, 1)))
			},
			func() garbage { return g("an empty batch", `[]`) },
			func() garbage { return g("a batch of numbers", `[1,2,3]`) },
			func() garbage { return g("a blank line", ``) },
			func() garbage { return g("white space", "   \t ") },
			func() garbage { return g("the number 42", `42`) },
			func() garbage { return g(`the string "x"`, `"x"`) },
			func() garbage { return g("null", `null`) },
			func() garbage { return g("text", `hello from the fuzzer`) },
		}},
	}
	total := 0
	for _, gr := range groups {
		total += gr.weight
	}
	n := p.Rng.Intn(total)
	for _, gr := range groups {
		if n < gr.weight {
			return gr.table[p.Rng.Intn(len(gr.table))]()
		}
		n -= gr.weight
	}
	return cut()
}

// The large frames are built once; their id is their own (a server is not
// bound to answer them, and may answer once per frame).
var (
	deepFrame = sync.OnceValue(func() string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":"mcpconform-deep","method":"ping","params":{"a":%s1%s}}`, strings.Repeat("[", 100000), strings.Repeat("]", 100000))
	})
	hugeFrame = sync.OnceValue(func() string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":"mcpconform-huge","method":"ping","params":{"a":"%s"}}`, strings.Repeat("A", 1<<20))
	})
)
