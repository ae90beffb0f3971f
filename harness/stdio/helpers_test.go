package stdio

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// testWait bounds every wait in these tests; reaching it is a failure.
const testWait = 10 * time.Second

// syncBuffer is a bytes.Buffer safe for the reader goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testConfig is the seed configuration with the small graces of the tests
// and the report captured. Its Environment holds one entry.
func testConfig(argv ...string) (Config, *syncBuffer) {
	report := &syncBuffer{}
	cfg := DefaultConfig()
	cfg.Command = argv
	cfg.ShutdownGrace = 100 * time.Millisecond
	cfg.CancelGrace = 50 * time.Millisecond
	cfg.Report = report
	// A server built with -race would otherwise linger a second at exit.
	cfg.Environment = []EnvEntry{{"GORACE", "atexit_sleep_ms=0"}}
	return cfg, report
}

// start starts a client, closing it when the test ends, and checks that no
// goroutine outlives it.
func start(t *testing.T, cfg Config) *Client {
	t.Helper()
	noLeaks(t)
	c, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// noLeaks fails the test if, once it and its cleanups are over, more
// goroutines run than before it, polling until testWait.
func noLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(testWait)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("goroutines leaked: %d before, %d after\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
}

// next returns the next message, failing if the session ends first.
func next(t *testing.T, c *Client) *jsonrpc.Message {
	t.Helper()
	select {
	case m, ok := <-c.Incoming():
		if !ok {
			t.Fatalf("Incoming closed; session ended: %v", c.Err())
		}
		return m
	case <-time.After(testWait):
		t.Fatal("no message within the test deadline")
	}
	return nil
}

// ended waits for the session to end and returns why.
func ended(t *testing.T, c *Client) error {
	t.Helper()
	select {
	case <-c.Done():
		return c.Err()
	case <-time.After(testWait):
		t.Fatal("the session did not end within the test deadline")
	}
	return nil
}

// wantKind fails unless err is a *failure.Error of kind.
func wantKind(t *testing.T, err, kind error) {
	t.Helper()
	var f *failure.Error
	if !errors.As(err, &f) || !errors.Is(err, kind) {
		t.Fatalf("error %v (%T): want a failure of kind %v", err, err, kind)
	}
}

// wantEndsWith expects the session to end with a failure of kind whose text
// holds every one of parts.
func wantEndsWith(t *testing.T, c *Client, kind error, parts ...string) error {
	t.Helper()
	err := ended(t, c)
	wantKind(t, err, kind)
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not mention %q", err, p)
		}
	}
	return err
}

// readRecord returns the events a test server recorded, by name.
func readRecord(t *testing.T, path string) map[string]time.Time {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read record: %v", err)
	}
	out := map[string]time.Time{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		name, ns, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(ns, 10, 64)
		if _, seen := out[name]; !seen {
			out[name] = time.Unix(0, n)
		}
	}
	return out
}

// waitFile waits until path exists and returns its content.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for {
		b, err := os.ReadFile(path)
		if err == nil && len(b) > 0 {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written within the test deadline", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// processGone reports whether pid no longer runs: absent, or a zombie
// waiting for its new parent to reap it.
func processGone(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// waitGone waits until pid no longer runs; it reports false at the deadline.
func waitGone(pid int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
