package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/selfexec"
)

func TestMain(m *testing.M) {
	selfexec.Dispatch()
	os.Exit(m.Run())
}

// waitLimit bounds every wait of these tests; reaching it is a failure.
const waitLimit = 10 * time.Second

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// readURL reads the {"url":…} line the server prints when it listens.
func readURL(t *testing.T, r io.Reader) string {
	t.Helper()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the url line: %v (got %q)", err, line)
	}
	var v struct{ URL string }
	if err := json.Unmarshal([]byte(line), &v); err != nil || !strings.HasPrefix(v.URL, "http://127.0.0.1:") || !strings.HasSuffix(v.URL, "/mcp") {
		t.Fatalf("url line %q", line)
	}
	return v.URL
}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := (&http.Client{Timeout: waitLimit}).Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// started runs run in the background and returns the URL, the end of its
// stdin and its exit status.
func started(t *testing.T, ctx context.Context, args ...string) (string, io.Closer, <-chan int) {
	t.Helper()
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	status := make(chan int, 1)
	go func() { status <- run(ctx, args, stdinR, stdoutW, io.Discard) }()
	t.Cleanup(func() { _ = stdinW.Close() })
	return readURL(t, stdoutR), stdinW, status
}

func wantExit(t *testing.T, status <-chan int, want int) {
	t.Helper()
	select {
	case got := <-status:
		if got != want {
			t.Fatalf("exit status %d, want %d", got, want)
		}
	case <-time.After(waitLimit):
		t.Fatal("serve did not stop")
	}
}

func TestServeStopsAtStdinEOF(t *testing.T) {
	url, stdin, status := started(t, context.Background())
	resp := post(t, url, initialize)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %s, session %q", resp.Status, resp.Header.Get("Mcp-Session-Id"))
	}
	_ = stdin.Close()
	wantExit(t, status, 0)
}

func TestServeStopsWhenSignalled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	_, _, status := started(t, ctx, "--transport", "http", "--addr", "127.0.0.1:0")
	cancel()
	wantExit(t, status, 0)
}

func TestServeFlags(t *testing.T) {
	url, stdin, status := started(t, context.Background(), "--json-response", "--stateless", "--mutant", "no-origin-check")
	resp := post(t, url, initialize)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("--json-response: Content-Type %q", ct)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("--stateless: session %q", sid)
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initialize))
	req.Header.Set("Origin", "https://evil.example")
	resp, err := (&http.Client{Timeout: waitLimit}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("--mutant no-origin-check: %s", resp.Status)
	}
	_ = stdin.Close()
	wantExit(t, status, 0)
}

func TestServeUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--transport", "stdio", "--mutant", "no-origin-check"}, "mutant \"no-origin-check\" mutates the HTTP server transport; use it with --transport http"},
		{[]string{"--transport", "stdio", "--stateless", "--addr", "127.0.0.1:0"}, "--addr, --stateless apply to --transport http only"},
		{[]string{"--page-size", "0"}, "must be positive"},
		{[]string{"--transport", "carrier-pigeon"}, "unknown transport"},
		{[]string{"--mutant", "no-such-mutant"}, "unknown server mutant \"no-such-mutant\"; mutants: accept-batch,"},
		{[]string{"--mutant", "no-sigkill"}, "unknown server mutant"},
		{[]string{"--addr", "0.0.0.0:0"}, "not a loopback IP address"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		var stderr bytes.Buffer
		if got := run(context.Background(), c.args, strings.NewReader(""), io.Discard, &stderr); got != 2 {
			t.Errorf("%v: exit %d, want 2", c.args, got)
		}
		if !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: stderr %q lacks %q", c.args, stderr.String(), c.want)
		}
	}
}

func TestStartServesTheReferenceServer(t *testing.T) {
	url, stop, err := Start(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	resp := post(t, url, initialize)
	b, _ := io.ReadAll(resp.Body)
	if resp.Header.Get("Content-Type") != "text/event-stream" || !strings.Contains(string(b), `"name":"mcpconform-reference"`) {
		t.Fatalf("initialize answer %s %q", resp.Header.Get("Content-Type"), b)
	}
}

func TestServeSubprocessExitsZeroOnSIGTERM(t *testing.T) {
	argv := selfexec.Command("serve")
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	exited := false
	defer func() {
		if !exited {
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	url := readURL(t, stdout)
	if resp := post(t, url, initialize); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %s", resp.Status)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		exited = true
		if err != nil {
			t.Fatalf("serve after SIGTERM: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("serve ignored SIGTERM")
	}
}

func TestIgnoresStdinEOFMutantOverHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, stdin, status := started(t, ctx, "--mutant", "ignores-stdin-eof")
	_ = stdin.Close()
	select {
	case got := <-status:
		t.Fatalf("the mutant exited (%d) at stdin's end", got)
	case <-time.After(quietWindow):
	}
	cancel()
	wantExit(t, status, 0)
}
