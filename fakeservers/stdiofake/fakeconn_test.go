package stdiofake

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// replyDeadline bounds every wait for the fake. Tests run in synctest
// bubbles, so it is fake time: a fake that never answers fails the test at
// once, with the deadline's message.
const replyDeadline = 10 * time.Second

// fakeConn drives one in-process fake over pipes, as a client would.
type fakeConn struct {
	t      *testing.T
	record string
	stdin  *io.PipeWriter
	lines  chan string // stdout, line by line
	status chan int    // Serve's result

	stderrMu  sync.Mutex
	stderr    bytes.Buffer
	stderrEOF chan struct{}
}

// startFake runs Serve for o with a record file in a temporary directory.
func startFake(t *testing.T, o Options) *fakeConn {
	t.Helper()
	o.Record = filepath.Join(t.TempDir(), "record.jsonl")
	rec, err := OpenRecorder(o.Record)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	errR, errW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeConn{
		t:         t,
		record:    o.Record,
		stdin:     inW,
		lines:     make(chan string, 1024),
		status:    make(chan int, 1),
		stderrEOF: make(chan struct{}),
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		f.status <- Serve(ctx, o, inR, outW, errW, rec)
		outW.Close()
		errW.Close()
	}()
	go func() {
		defer close(f.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			f.lines <- sc.Text()
		}
	}()
	go func() {
		defer close(f.stderrEOF)
		buf := make([]byte, 32<<10)
		for {
			n, err := errR.Read(buf)
			f.stderrMu.Lock()
			f.stderr.Write(buf[:n])
			f.stderrMu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
		errR.Close()
		<-served
		for range f.lines {
		}
		<-f.stderrEOF
		rec.Close()
	})
	return f
}

// send writes one line to the fake's stdin.
func (f *fakeConn) send(line string) {
	f.t.Helper()
	if _, err := io.WriteString(f.stdin, line+"\n"); err != nil {
		f.t.Fatalf("write to fake stdin: %v", err)
	}
}

// request sends a request with a numeric id.
func (f *fakeConn) request(id int64, method string, params any) {
	f.t.Helper()
	f.sendMessage(jsonrpc.IntID(id), method, params)
}

func (f *fakeConn) sendMessage(id jsonrpc.ID, method string, params any) {
	f.t.Helper()
	var m *jsonrpc.Message
	var err error
	if id.IsZero() {
		m, err = jsonrpc.NewNotification(method, params)
	} else {
		m, err = jsonrpc.NewRequest(id, method, params)
	}
	if err != nil {
		f.t.Fatal(err)
	}
	b, err := jsonrpc.Encode(m)
	if err != nil {
		f.t.Fatal(err)
	}
	f.send(string(b))
}

// callTool sends tools/call for name with arguments {}.
func (f *fakeConn) callTool(id jsonrpc.ID, name string) {
	f.t.Helper()
	f.sendMessage(id, "tools/call", map[string]any{"name": name, "arguments": map[string]any{}})
}

// closeStdin closes the fake's stdin (EOF).
func (f *fakeConn) closeStdin() { f.stdin.Close() }

// nextLine returns the next stdout line.
func (f *fakeConn) nextLine() string {
	f.t.Helper()
	select {
	case l, ok := <-f.lines:
		if !ok {
			f.t.Fatal("fake closed stdout; wanted another line")
		}
		return l
	case <-time.After(replyDeadline):
		f.t.Fatalf("no stdout line from the fake within %s", replyDeadline)
	}
	return ""
}

// nextMessage returns the next stdout line, which must be a message.
func (f *fakeConn) nextMessage() *jsonrpc.Message {
	f.t.Helper()
	l := f.nextLine()
	m, err := jsonrpc.Decode([]byte(l))
	if err != nil {
		f.t.Fatalf("fake wrote %q; want a JSON-RPC message: %v", l, err)
	}
	return m
}

// wantResult returns the result of the next line, a success response to id.
func (f *fakeConn) wantResult(id jsonrpc.ID) json.RawMessage {
	f.t.Helper()
	m := f.nextMessage()
	if m.Kind() != jsonrpc.KindResult || m.ID.Key() != id.Key() {
		f.t.Fatalf("fake wrote %s %s; want a result for id %s", m.Kind(), m.ID, id)
	}
	return m.Result
}

// wantError checks that the next line is an error response to id with code.
func (f *fakeConn) wantError(id jsonrpc.ID, code int64) *jsonrpc.Error {
	f.t.Helper()
	m := f.nextMessage()
	if m.Kind() != jsonrpc.KindError || m.ID.Key() != id.Key() || m.Error.Code != code {
		f.t.Fatalf("fake wrote %s id %s (error %v); want error %d for id %s", m.Kind(), m.ID, m.Error, code, id)
	}
	return m.Error
}

// wantCallText checks that the next line is a tools/call result for id with text.
func (f *fakeConn) wantCallText(id jsonrpc.ID, text string) {
	f.t.Helper()
	var res fakeservers.CallResult
	if err := json.Unmarshal(f.wantResult(id), &res); err != nil {
		f.t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Type != "text" || res.Content[0].Text != text {
		f.t.Fatalf("tools/call %s result %+v; want one text content %q", id, res, text)
	}
}

// initialize does the handshake: initialize, then notifications/initialized.
func (f *fakeConn) initialize() {
	f.t.Helper()
	f.request(0, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}})
	f.wantResult(jsonrpc.IntID(0))
	f.sendMessage(jsonrpc.ID{}, "notifications/initialized", nil)
}

// wantStatus waits for Serve to return and checks its status.
func (f *fakeConn) wantStatus(want int) {
	f.t.Helper()
	select {
	case got := <-f.status:
		if got != want {
			f.t.Fatalf("Serve returned %d; want %d", got, want)
		}
	case <-time.After(replyDeadline):
		f.t.Fatalf("Serve still running after %s; want it to return %d", replyDeadline, want)
	}
}

// stderrText returns everything the fake wrote to stderr; call it after the
// fake has ended or written what the test waits for.
func (f *fakeConn) stderrText() string {
	f.stderrMu.Lock()
	defer f.stderrMu.Unlock()
	return f.stderr.String()
}

// readRecord reads the fake's record once the fake's goroutines have done
// what they can (a handler records a line after writing it).
func (f *fakeConn) readRecord() *Record {
	f.t.Helper()
	synctest.Wait()
	r, err := ReadRecord(f.record)
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}
