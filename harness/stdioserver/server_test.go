package stdioserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcpserver"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// stdioPeer talks to a stdio server transport serving the reference MCP
// server over pipes, as a client process would.
type stdioPeer struct {
	t      *testing.T
	stdin  *io.PipeWriter
	lines  chan string // stdout, a line at a time; closed once Serve returned
	served chan error  // what Serve returned
	cancel context.CancelFunc
}

// testWait bounds every wait in these tests; reaching it is a failure.
const testWait = 10 * time.Second

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// serveLines starts Serve with cfg (its Handler a reference server when nil).
func serveLines(t *testing.T, cfg Options) *stdioPeer {
	t.Helper()
	if cfg.Handler == nil {
		srv, err := mcpserver.New(mcpserver.Options{Mutant: cfg.Mutant})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Handler = srv
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	p := &stdioPeer{t: t, stdin: inW, lines: make(chan string, 256), served: make(chan error, 1), cancel: cancel}
	go func() {
		err := Serve(ctx, cfg, inR, outW)
		_ = outW.Close()
		p.served <- err
	}()
	go func() {
		defer close(p.lines)
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			p.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = inW.Close()
		_ = outR.Close()
	})
	return p
}

// send writes lines to the server's stdin.
func (p *stdioPeer) send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.stdin, l+"\n"); err != nil {
			p.t.Fatalf("writing stdin: %v", err)
		}
	}
}

// next returns the next stdout line.
func (p *stdioPeer) next() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("stdout ended")
		}
		return l
	case <-timeAfterTestWait():
		p.t.Fatalf("no stdout line within %v", testWait)
		return ""
	}
}

// nextMessage returns the next stdout line, which must be a message.
func (p *stdioPeer) nextMessage() *jsonrpc.Message {
	p.t.Helper()
	l := p.next()
	m, err := jsonrpc.Decode([]byte(l))
	if err != nil {
		p.t.Fatalf("stdout line %q: %v", l, err)
	}
	return m
}

// wantError reads an error response with code and the id as JSON text.
func (p *stdioPeer) wantError(code int64, id string) {
	p.t.Helper()
	m := p.nextMessage()
	if m.Kind() != jsonrpc.KindError || m.Error.Code != code || m.ID.String() != id {
		p.t.Fatalf("got %s id %s %+v, want error %d with id %s", m.Kind(), m.ID, m.Error, code, id)
	}
}

// wantResult reads a result for id.
func (p *stdioPeer) wantResult(id string) *jsonrpc.Message {
	p.t.Helper()
	m := p.nextMessage()
	if m.Kind() != jsonrpc.KindResult || m.ID.String() != id {
		p.t.Fatalf("got %s id %s %+v, want a result for %s", m.Kind(), m.ID, m.Error, id)
	}
	return m
}

// closeAndRest closes stdin, waits for Serve and returns what else it wrote.
func (p *stdioPeer) closeAndRest() ([]string, error) {
	p.t.Helper()
	_ = p.stdin.Close()
	var rest []string
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return rest, <-p.served
			}
			rest = append(rest, l)
		case <-timeAfterTestWait():
			p.t.Fatalf("Serve did not return within %v of stdin's end", testWait)
		}
	}
}

func (p *stdioPeer) initialize() {
	p.t.Helper()
	p.send(initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.wantResult("1")
}

func TestStdioServerAnswersLineByLine(t *testing.T) {
	p := serveLines(t, Options{})
	p.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	p.wantResult(`"p"`)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":9}}}`)
	for range 2 {
		if m := p.nextMessage(); m.Method != "notifications/progress" {
			t.Fatalf("got %s, want progress", m.Method)
		}
	}
	p.wantResult("2")
	if rest, err := p.closeAndRest(); err != nil || len(rest) > 0 {
		t.Fatalf("after stdin's end: %v, %q", err, rest)
	}
}

func TestStdioServerAnswersDamagedLinesWithParseErrors(t *testing.T) {
	p := serveLines(t, Options{})
	for _, l := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"`, `not json at all`, `{"id":1,`, `[{"jsonrpc":"2.0"`, "\xff\xfe"} {
		p.send(l)
		p.wantError(jsonrpc.CodeParseError, "null")
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	p.wantResult("3")
}

func TestStdioServerAnswersInvalidRequests(t *testing.T) {
	p := serveLines(t, Options{})
	p.initialize()
	for _, c := range []struct{ line, id string }{
		{`42`, "null"},
		{`"ping"`, "null"},
		{`null`, "null"},
		{`[]`, "null"},
		{`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, "null"}, // no batches after 2025-03-26
		{`{"jsonrpc":"1.0","id":5,"method":"ping"}`, "5"},
		{`{"id":"six","method":"ping"}`, `"six"`},
		{`{"jsonrpc":"2.0","id":7.5,"method":"ping"}`, "null"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, "null"},
		{`{"jsonrpc":"2.0","id":8,"method":""}`, "8"},
		{`{"jsonrpc":"2.0","id":9,"method":"ping","params":3}`, "9"},
		{`{"jsonrpc":"2.0"}`, "null"},
	} {
		p.send(c.line)
		p.wantError(jsonrpc.CodeInvalidRequest, c.id)
	}
}

func TestStdioServerSkipsBlankLinesAndBoundsLongOnes(t *testing.T) {
	p := serveLines(t, Options{MaxLineBytes: 64})
	p.send("", "   ", "\t")
	p.send(`{"jsonrpc":"2.0","id":"a-long-id-` + strings.Repeat("x", 200) + `","method":"ping"}`)
	p.wantError(jsonrpc.CodeInvalidRequest, "null")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	p.wantResult("2")
}

func TestStdioServerAcceptsBatchesIn20250326(t *testing.T) {
	p := serveLines(t, Options{})
	p.send(strings.Replace(initLine, "2025-11-25", "2025-03-26", 1), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.wantResult("1")
	p.send(`[{"jsonrpc":"2.0","id":10,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"11","method":"tools/list"}]`)
	msgs, err := jsonrpc.DecodeBatch([]byte(p.next()))
	if err != nil || len(msgs) != 2 || msgs[0].ID != jsonrpc.IntID(10) || msgs[1].ID != jsonrpc.StringID("11") || msgs[1].Kind() != jsonrpc.KindResult {
		t.Fatalf("batch answer %+v, %v", msgs, err)
	}
	p.send(`[{"jsonrpc":"2.0","method":"notifications/x"}]`) // nothing to answer
	p.send(`[{"jsonrpc":"2.0","id":12,"method":"initialize","params":{}}]`)
	p.wantError(jsonrpc.CodeInvalidRequest, "null")
	p.send(`[{"jsonrpc":"2.0","id":13,"method":"ping"},{"bad":true}]`)
	p.wantError(jsonrpc.CodeInvalidRequest, "null")
}

func TestStdioServerCancelledRequestGetsNothing(t *testing.T) {
	p := serveLines(t, Options{})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"ms":600000},"_meta":{"progressToken":"s"}}}`)
	if m := p.nextMessage(); m.Method != "notifications/progress" {
		t.Fatalf("got %s, want slow's progress", m.Method)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	p.wantResult("3")
	if rest, err := p.closeAndRest(); err != nil || len(rest) > 0 {
		t.Fatalf("after the cancel: %v, %q", err, rest)
	}
}

func TestStdioServerStopsAtStdinEOF(t *testing.T) {
	p := serveLines(t, Options{})
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"ms":600000},"_meta":{"progressToken":"s"}}}`)
	p.nextMessage()
	// The connection's end stops the handler, which still answers.
	rest, err := p.closeAndRest()
	if err != nil || len(rest) != 1 || !strings.Contains(rest[0], `"isError":true`) {
		t.Fatalf("at stdin's end: %v, %q", err, rest)
	}
}

func TestStdioServerStopsWithItsContext(t *testing.T) {
	p := serveLines(t, Options{})
	p.initialize()
	p.cancel()
	select {
	case err := <-p.served:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Serve returned %v, want context.Canceled", err)
		}
	case <-timeAfterTestWait():
		t.Fatal("Serve ignored its context")
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout is gone") }

func TestStdioServerEndsWhenStdoutBreaks(t *testing.T) {
	srv, _ := mcpserver.New(mcpserver.Options{})
	inR, inW := io.Pipe()
	defer inW.Close()
	served := make(chan error, 1)
	go func() { served <- Serve(context.Background(), Options{Handler: srv}, inR, failingWriter{}) }()
	_, _ = io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	select {
	case err := <-served:
		if err == nil || !strings.Contains(err.Error(), "stdout is gone") {
			t.Fatalf("Serve returned %v", err)
		}
	case <-timeAfterTestWait():
		t.Fatal("Serve kept going with a broken stdout")
	}
}

func TestServeNeedsAHandler(t *testing.T) {
	if err := Serve(context.Background(), Options{}, strings.NewReader(""), io.Discard); err == nil {
		t.Fatal("Serve without a handler succeeded")
	}
}

// stdioRuleOf observes, for each mutant of the stdio server transport,
// whether the server breaks its rule, and what it saw.
var stdioRuleOf = map[mutant.Name]func(p *stdioPeer) (bool, string){
	mutant.ParseErrorWithID: func(p *stdioPeer) (bool, string) {
		p.send(`{"jsonrpc":`)
		m := p.nextMessage()
		return !m.ID.IsZero(), m.ID.String()
	},
	mutant.InvalidRequestAsMethodMissing: func(p *stdioPeer) (bool, string) {
		p.send(`{"jsonrpc":"2.0","id":null,"method":"ping"}`)
		m := p.nextMessage()
		return m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest, m.Error.Error()
	},
	mutant.BatchRefused: func(p *stdioPeer) (bool, string) {
		p.send(strings.Replace(initLine, "2025-11-25", "2025-03-26", 1), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		p.wantResult("1")
		p.send(`[{"jsonrpc":"2.0","id":10,"method":"ping"}]`)
		l := p.next()
		return !strings.HasPrefix(l, "["), l
	},
	mutant.StdoutBatchLine: func(p *stdioPeer) (bool, string) {
		p.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		l := p.next()
		return strings.HasPrefix(l, "["), l
	},
	mutant.StdoutBanner: func(p *stdioPeer) (bool, string) {
		p.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		l := p.next()
		_, err := jsonrpc.Decode([]byte(l))
		return err != nil, l
	},
}

func TestEachStdioServerMutantBreaksItsRule(t *testing.T) {
	for name, observe := range stdioRuleOf {
		t.Run(string(name), func(t *testing.T) {
			if broken, saw := observe(serveLines(t, Options{})); broken {
				t.Errorf("the reference breaks the rule of %s: saw %s", name, saw)
			}
			if broken, saw := observe(serveLines(t, Options{Mutant: name})); !broken {
				t.Errorf("mutant %s keeps its rule: saw %s", name, saw)
			}
		})
	}
}

func timeAfterTestWait() <-chan time.Time { return time.After(testWait) }
