package mcpclient_test

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/mcpclient"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/stdio"
)

// The test binary runs the fake servers as subprocesses.
func TestMain(m *testing.M) {
	selfexec.Dispatch()
	os.Exit(m.Run())
}

// testWait bounds every wait in these tests.
const testWait = 10 * time.Second

// startFake launches fake server o with the tests' small graces.
func startFake(t testing.TB, o stdiofake.Options) *stdio.Client {
	t.Helper()
	cfg := stdio.DefaultConfig()
	cfg.Command = selfexec.Command("fakeserver", o.Args()...)
	cfg.ShutdownGrace = 100 * time.Millisecond
	cfg.CancelGrace = 50 * time.Millisecond
	cfg.Report = io.Discard
	// A fake built with -race would otherwise linger a second at exit.
	cfg.Environment = []stdio.EnvEntry{{Name: "GORACE", Value: "atexit_sleep_ms=0"}}
	c, err := stdio.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestOverStdioWithAWellBehavedServer(t *testing.T) {
	c := startFake(t, stdiofake.Options{Case: "well-behaved"})
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	s, err := mcpclient.Connect(ctx, c, mcpclient.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tools, err := s.ListTools(ctx)
	if err != nil || len(tools) != 1 || tools[0].Name != "echo" {
		t.Fatalf("tools %+v, %v", tools, err)
	}
	res, err := s.CallTool(ctx, "echo", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("call: %+v, %v", res, err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(c.Err(), failure.ErrShutdown) {
		t.Fatalf("transport ended with %v", c.Err())
	}
}

// TestOverStdioTimeoutCancelsThenTerminates: NG-07 end to end:
// notifications/cancelled, the cancel grace, stdin EOF, the shutdown grace,
// SIGTERM.
func TestOverStdioTimeoutCancelsThenTerminates(t *testing.T) {
	record := t.TempDir() + "/record"
	c := startFake(t, stdiofake.Options{Case: "never-answers-ignore-eof", Record: record})
	s, err := mcpclient.Connect(context.Background(), c, mcpclient.Options{CallTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CallTool(context.Background(), "echo", nil); !errors.Is(err, failure.ErrTimeout) {
		t.Fatalf("call: %v, want a timeout", err)
	}
	select {
	case <-c.Done():
	case <-time.After(testWait):
		t.Fatal("the server was not terminated after the cancel grace")
	}
	if !errors.Is(c.Err(), failure.ErrCancelled) {
		t.Fatalf("transport ended with %v, want cancelled", c.Err())
	}
	_ = s.Close()
	rec, err := stdiofake.ReadRecord(record)
	if err != nil {
		t.Fatal(err)
	}
	cancelled, ok1 := rec.FirstRecv("notifications/cancelled")
	eof, ok2 := rec.First(stdiofake.EventStdinEOF)
	term, ok3 := rec.First(stdiofake.EventSigterm)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("record lacks cancelled (%v), stdin EOF (%v) or SIGTERM (%v)", ok1, ok2, ok3)
	}
	// The fake records events when it gets to them, so the gaps it sees may
	// fall a little short of the graces; half a grace tells "after the
	// grace" from "at once".
	if gap := time.Duration(eof.T - cancelled.T); gap < 25*time.Millisecond {
		t.Errorf("stdin closed %v after notifications/cancelled, want the cancel grace (50ms)", gap)
	}
	if gap := time.Duration(term.T - eof.T); gap < 50*time.Millisecond {
		t.Errorf("SIGTERM %v after stdin EOF, want the shutdown grace (100ms)", gap)
	}
}

// TestOverStdioStartupTimeout: NG-09, LC-13 end to end.
func TestOverStdioStartupTimeout(t *testing.T) {
	record := t.TempDir() + "/record"
	c := startFake(t, stdiofake.Options{Case: "slow-start", Delay: time.Minute, Record: record})
	_, err := mcpclient.Connect(context.Background(), c, mcpclient.Options{StartupTimeout: 300 * time.Millisecond})
	if !errors.Is(err, failure.ErrTimeout) {
		t.Fatalf("Connect: %v, want a timeout", err)
	}
	if took := time.Since(c.StartedAt()); took < 300*time.Millisecond || took > testWait {
		t.Errorf("Connect gave up %v after launch", took)
	}
	_ = c.Close()
	rec, err := stdiofake.ReadRecord(record)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Notifications("notifications/cancelled")); n != 0 {
		t.Fatalf("initialize was cancelled %d times", n)
	}
}

// TestOverStdioDamagedLineFailsTheCallAtOnce: NG-02 end to end.
func TestOverStdioDamagedLineFailsTheCallAtOnce(t *testing.T) {
	c := startFake(t, stdiofake.Options{Case: "damaged", Shape: "brace"})
	s, err := mcpclient.Connect(context.Background(), c, mcpclient.Options{CallTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if _, err := s.CallTool(context.Background(), "echo", nil); !errors.Is(err, failure.ErrProtocol) {
		t.Fatalf("call: %v, want a protocol failure", err)
	}
	if took := time.Since(began); took > testWait {
		t.Fatalf("the call failed after %v", took)
	}
}

// TestOverStdioIDTypes: NG-12 end to end, an error with id "2" does not
// answer request 2.
func TestOverStdioIDTypes(t *testing.T) {
	c := startFake(t, stdiofake.Options{Case: "id-swap"})
	s, err := mcpclient.Connect(context.Background(), c, mcpclient.Options{CallTimeout: testWait})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CallTool(context.Background(), "echo", nil); err != nil {
		t.Fatalf("call: %v", err)
	}
}

// BenchmarkPingRoundTrip measures ping round trips through the reference
// stdio client to a well-behaved fake server subprocess.
func BenchmarkPingRoundTrip(b *testing.B) {
	c := startFake(b, stdiofake.Options{Case: "well-behaved"})
	ctx := context.Background()
	s, err := mcpclient.Connect(ctx, c, mcpclient.Options{})
	if err != nil {
		b.Fatal(err)
	}
	began := time.Now()
	for b.Loop() {
		if err := s.Ping(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(began).Seconds(), "pings/s")
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
}
