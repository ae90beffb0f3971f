package serve

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// quietWindow is how long a test watches a process to see that it does NOT
// exit.
const quietWindow = 500 * time.Millisecond

func timeAfter(d time.Duration) <-chan time.Time { return time.After(d) }

// stdioProcess is `mcpconform serve --transport stdio` in a child process
// of the test binary.
type stdioProcess struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string   // stdout lines; closed at its end
	done   chan struct{} // closed once the process exited; err says how
	err    error
	stderr *lockedBuffer
}

// lockedBuffer collects the child's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startStdio(t *testing.T, args ...string) *stdioProcess {
	t.Helper()
	argv := selfexec.Command("serve", append([]string{"--transport", "stdio"}, args...)...)
	p := &stdioProcess{t: t, cmd: exec.Command(argv[0], argv[1:]...), lines: make(chan string, 256), done: make(chan struct{}), stderr: &lockedBuffer{}}
	p.cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			p.lines <- strings.TrimSuffix(line, "\n")
		}
		close(p.lines)
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		for range p.lines {
		}
		<-p.done
		if t.Failed() {
			t.Logf("server stderr: %s", p.stderr.String())
		}
	})
	return p
}

func (p *stdioProcess) send(lines ...string) {
	p.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(p.stdin, l+"\n"); err != nil {
			p.t.Fatalf("writing the server's stdin: %v", err)
		}
	}
}

// next returns the next stdout line, which must be a JSON-RPC message.
func (p *stdioProcess) next() *jsonrpc.Message {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server's stdout ended")
		}
		m, err := jsonrpc.Decode([]byte(l))
		if err != nil {
			p.t.Fatalf("stdout line %q is no JSON-RPC message (ST-03): %v", l, err)
		}
		return m
	case <-timeAfter(waitLimit):
		p.t.Fatalf("no stdout line within %v", waitLimit)
		return nil
	}
}

// ping makes a round trip, so the server is known to be serving.
func (p *stdioProcess) ping(id int64) {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":` + jsonrpc.IntID(id).String() + `,"method":"ping"}`)
	if m := p.next(); m.ID != jsonrpc.IntID(id) || m.Kind() != jsonrpc.KindResult {
		p.t.Fatalf("ping %d answered %+v", id, m)
	}
}

// exitsWithin reports whether the process exits within d, and its error.
func (p *stdioProcess) exitsWithin(d time.Duration) (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	case <-timeAfter(d):
		return false, nil
	}
}

func TestStdioServeEndToEnd(t *testing.T) {
	p := startStdio(t, "--page-size", "3")
	p.ping(1)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	if m := p.next(); !strings.Contains(string(m.Result), `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize answered %s", m.Result)
	}
	if m := p.next(); m.ID != jsonrpc.IntID(3) || strings.Count(string(m.Result), `"name":`) != 3 || !strings.Contains(string(m.Result), "nextCursor") {
		t.Fatalf("tools/list with --page-size 3 answered %s", m.Result)
	}
	// roots: the server asks the client on stdout and reads the reply on stdin.
	p.send(`{"jsonrpc":"2.0","id":"r","method":"tools/call","params":{"name":"roots"}}`)
	req := p.next()
	if req.Method != "roots/list" {
		t.Fatalf("got %+v, want roots/list", req)
	}
	p.send(`{"jsonrpc":"2.0","id":` + req.ID.String() + `,"result":{"roots":[{"uri":"file:///w","name":"w"}]}}`)
	if m := p.next(); m.ID != jsonrpc.StringID("r") || !strings.Contains(string(m.Result), "file:///w (w)") {
		t.Fatalf("roots answered %+v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"ping"`)
	if m := p.next(); m.Error == nil || m.Error.Code != jsonrpc.CodeParseError || !m.ID.IsZero() {
		t.Fatalf("a damaged line got %+v", m)
	}
	_ = p.stdin.Close()
	exited, err := p.exitsWithin(waitLimit)
	if !exited || err != nil {
		t.Fatalf("after stdin's end: exited %v, %v", exited, err)
	}
}

func TestStdioServeExitsOnSIGTERM(t *testing.T) {
	p := startStdio(t)
	p.ping(1)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if exited, err := p.exitsWithin(waitLimit); !exited || err != nil {
		t.Fatalf("after SIGTERM: exited %v, %v", exited, err)
	}
}

// processRuleOf observes, for each mutant of the serve command, whether the
// process breaks its rule.
var processRuleOf = map[mutant.Name]func(p *stdioProcess) (bool, string){
	mutant.IgnoresStdinEOF: func(p *stdioProcess) (bool, string) {
		_ = p.stdin.Close()
		exited, err := p.exitsWithin(waitLimitOr(p))
		return !exited, fmt.Sprintf("after stdin's end: exited %v (%v)", exited, err)
	},
	mutant.IgnoresSIGTERM: func(p *stdioProcess) (bool, string) {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		exited, err := p.exitsWithin(waitLimitOr(p))
		return !exited, fmt.Sprintf("after SIGTERM: exited %v (%v)", exited, err)
	},
}

// waitLimitOr is how long to watch for an exit: the reference must exit
// within waitLimit; a mutant is watched for quietWindow only.
func waitLimitOr(p *stdioProcess) time.Duration {
	if strings.Contains(strings.Join(p.cmd.Args, " "), "--mutant") {
		return quietWindow
	}
	return waitLimit
}

func TestEachServeMutantBreaksItsRule(t *testing.T) {
	for name, observe := range processRuleOf {
		t.Run(string(name), func(t *testing.T) {
			ref := startStdio(t)
			ref.ping(1)
			if broken, saw := observe(ref); broken {
				t.Errorf("the reference breaks the rule of %s: %s", name, saw)
			}
			mut := startStdio(t, "--mutant", string(name))
			mut.ping(1)
			if broken, saw := observe(mut); !broken {
				t.Errorf("mutant %s keeps its rule: %s", name, saw)
			}
		})
	}
}

func TestStdoutBannerMutantOverStdio(t *testing.T) {
	p := startStdio(t, "--mutant", string(mutant.StdoutBanner))
	p.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	select {
	case l := <-p.lines:
		if _, err := jsonrpc.Decode([]byte(l)); err == nil {
			t.Fatalf("the mutant's first line %q is a message, want its banner", l)
		}
	case <-timeAfter(waitLimit):
		t.Fatal("no stdout line")
	}
}
