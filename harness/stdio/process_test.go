package stdio

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// mutantName names a subtest after the mutant it runs.
func mutantName(m mutant.Name) string {
	if m == "" {
		return "reference"
	}
	return string(m)
}

const ready = `{"jsonrpc":"2.0","method":"ready"}` + "\n"

// startReady starts a server that says ready once its actions up to then
// ran, and waits for that.
func startReady(t *testing.T, cfg Config) *Client {
	t.Helper()
	c := start(t, cfg)
	if m := next(t, c); m.Method != "ready" {
		t.Fatalf("got %q, want ready", m.Method)
	}
	return c
}

// TestCloseOfAWellBehavedServerOnlyClosesStdin: LC-20, a server that exits
// on stdin EOF never sees a signal.
func TestCloseOfAWellBehavedServerOnlyClosesStdin(t *testing.T) {
	record := t.TempDir() + "/record"
	cfg, _ := testConfig(serverArgv("record:"+record, "ignoreterm", "out:"+q(ready), "waiteof")...)
	c := startReady(t, cfg)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ev := readRecord(t, record)
	if _, ok := ev["eof"]; !ok {
		t.Fatal("the server did not see stdin EOF")
	}
	if _, ok := ev["term"]; ok {
		t.Fatal("a server that exits on EOF got SIGTERM")
	}
	wantKind(t, c.Err(), failure.ErrShutdown)
}

// TestCloseEscalatesOnAStubbornServer: LC-20, NG-07: stdin EOF, then after
// ShutdownGrace SIGTERM, then after ShutdownGrace SIGKILL; and the teardown
// mutants each break the order.
func TestCloseEscalatesOnAStubbornServer(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.NoSigterm, mutant.SigtermBeforeEOF, mutant.NoSigkill} {
		t.Run(mutantName(m), func(t *testing.T) {
			record := t.TempDir() + "/record"
			cfg, _ := testConfig(serverArgv("record:"+record, "ignoreterm", "out:"+q(ready), "waiteof", "sleep:20s")...)
			cfg.Mutant = m
			grace := cfg.ShutdownGrace
			c := startReady(t, cfg)
			began := time.Now()
			closeErr := c.Close()
			took := time.Since(began)
			ev := readRecord(t, record)
			eof, sawEOF := ev["eof"]
			term, sawTerm := ev["term"]
			if !sawEOF {
				t.Fatal("the server's stdin was never closed")
			}
			switch m {
			// The server records events when it gets to them, so the gaps it
			// sees may fall a little short of the graces: grace/2 separates
			// "after a grace" from "at once".
			case "":
				if closeErr != nil || !sawTerm || term.Sub(eof) < grace/2 || took < 2*grace {
					t.Fatalf("Close = %v after %v; eof %v, term %v (+%v); want EOF, SIGTERM a grace later, SIGKILL a grace after", closeErr, took, eof, term, term.Sub(eof))
				}
			case mutant.NoSigterm:
				if sawTerm {
					t.Fatal("NoSigterm sent SIGTERM")
				}
			case mutant.SigtermBeforeEOF:
				if !sawTerm || !term.Before(eof) {
					t.Fatalf("SigtermBeforeEOF: eof %v, term %v; want SIGTERM first", eof, term)
				}
			case mutant.NoSigkill:
				wantKind(t, closeErr, failure.ErrShutdown)
				if processGone(c.PID()) {
					t.Fatal("NoSigkill: the stubborn server is gone")
				}
				_ = syscall.Kill(-c.PID(), syscall.SIGKILL)
			}
			if !waitGone(c.PID(), testWait) {
				t.Fatal("the server still runs")
			}
		})
	}
}

// TestCloseKillsTheProcessGroup: NG-08, a grandchild that ignores SIGTERM
// does not survive; NoProcessGroup leaves it running.
func TestCloseKillsTheProcessGroup(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.NoProcessGroup} {
		t.Run(mutantName(m), func(t *testing.T) {
			pidFile := t.TempDir() + "/grandchild"
			cfg, _ := testConfig(serverArgv("grandchild:"+pidFile, "out:"+q(ready), "waiteof")...)
			cfg.Mutant = m
			c := startReady(t, cfg)
			gpid, err := strconv.Atoi(waitFile(t, pidFile))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if m == mutant.NoProcessGroup {
				if processGone(gpid) {
					t.Fatal("NoProcessGroup: the grandchild died anyway")
				}
				_ = syscall.Kill(gpid, syscall.SIGKILL)
			}
			if !waitGone(gpid, testWait) {
				t.Fatalf("grandchild %d survived Close", gpid)
			}
		})
	}
}

// TestRequestCancelledWaitsTheGraceThenTerminates: NG-07.
func TestRequestCancelledWaitsTheGraceThenTerminates(t *testing.T) {
	record := t.TempDir() + "/record"
	cfg, _ := testConfig(serverArgv("record:"+record, "out:"+q(ready), "waiteof")...)
	c := startReady(t, cfg)
	asked := time.Now()
	c.RequestCancelled()
	wantEndsWith(t, c, failure.ErrCancelled, "cancelled request")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if eof := readRecord(t, record)["eof"]; eof.Sub(asked) < cfg.CancelGrace {
		t.Fatalf("stdin closed %v after RequestCancelled; want at least the grace %v", eof.Sub(asked), cfg.CancelGrace)
	}
	wantKind(t, c.Err(), failure.ErrCancelled)
}

// TestNoCancelGraceMutantTerminatesAtOnce: with a long grace the mutant
// still ends the session right away.
func TestNoCancelGraceMutantTerminatesAtOnce(t *testing.T) {
	cfg, _ := testConfig(serverArgv("out:"+q(ready), "waiteof")...)
	cfg.CancelGrace = time.Hour
	cfg.Mutant = mutant.NoCancelGrace
	c := startReady(t, cfg)
	c.RequestCancelled()
	wantEndsWith(t, c, failure.ErrCancelled)
}

// TestStderrFloodDoesNotBlock: NG-05, 64 MiB of stderr before the first
// message neither blocks the server nor grows the tail past its bound.
func TestStderrFloodDoesNotBlock(t *testing.T) {
	const flood = 64 << 20
	cfg, _ := testConfig(serverArgv("err:"+strconv.Itoa(flood), "out:"+q(msgLast), "waiteof")...)
	cfg.MaxStderrBytes = 4096
	c := start(t, cfg)
	if m := next(t, c); m.Method != "last" {
		t.Fatalf("got %q", m.Method)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	tail := c.StderrTail()
	if len(tail) != 4096 || !strings.HasSuffix(string(tail), "<END>") || c.tail.Total() != flood || len(c.tail.ring) != 4096 {
		t.Fatalf("tail of %d bytes (ring %d, total %d), want the last 4096 of %d", len(tail), len(c.tail.ring), c.tail.Total(), flood)
	}
	wantKind(t, c.Err(), failure.ErrShutdown)
}

// TestStderrVolumeNeverEndsTheSession: NG-05, ST-08; StderrVolumeFatal
// breaks it.
func TestStderrVolumeNeverEndsTheSession(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.StderrVolumeFatal} {
		cfg, _ := testConfig(serverArgv("err:4096", "out:"+q(msgLast), "waiteof")...)
		cfg.MaxStderrBytes = 1024
		cfg.Mutant = m
		c := start(t, cfg)
		if m == "" {
			if got := next(t, c); got.Method != "last" {
				t.Fatalf("got %q", got.Method)
			}
		} else {
			wantEndsWith(t, c, failure.ErrProtocol, "stderr")
		}
		_ = c.Close()
	}
}

// TestStderrNeverInErrorsOrReports: NG-06; LeakStderr breaks it.
func TestStderrNeverInErrorsOrReports(t *testing.T) {
	const secret = "SECRET-ON-STDERR"
	for _, m := range []mutant.Name{"", mutant.LeakStderr} {
		cfg, report := testConfig(serverArgv("errq:"+q(secret+"\n"), "out:"+q("banner\n"), "exit:1")...)
		cfg.Mutant = m
		c := start(t, cfg)
		err := wantEndsWith(t, c, failure.ErrConnection, "exit status 1")
		_ = c.Close()
		if !strings.Contains(string(c.StderrTail()), secret) {
			t.Fatalf("the tail %q lacks what the server wrote", c.StderrTail())
		}
		leaked := strings.Contains(err.Error(), secret) || strings.Contains(report.String(), secret)
		if leaked != (m == mutant.LeakStderr) {
			t.Errorf("mutant %q: error %q, report %q", m, err, report)
		}
	}
}

// TestNoStderrDrainMutantBlocksTheServer: without the drain (NG-05) a server
// writing 1 MiB to stderr blocks in the write; the reference delivers the
// message that follows.
func TestNoStderrDrainMutantBlocksTheServer(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.NoStderrDrain} {
		t.Run(mutantName(m), func(t *testing.T) {
			cfg, _ := testConfig(serverArgv("err:1048576", "out:"+q(msgLast), "waiteof")...)
			cfg.Mutant = m
			c := start(t, cfg)
			if m == "" {
				if got := next(t, c); got.Method != "last" {
					t.Fatalf("got %q", got.Method)
				}
				return
			}
			// Blocked in its stderr write, the server never gets to the
			// message that follows: none may arrive within the window.
			select {
			case m, ok := <-c.Incoming():
				t.Fatalf("the server was not blocked writing stderr: got %v (open %v)", m, ok)
			case <-time.After(300 * time.Millisecond):
			}
		})
	}
}

// TestCloseDuringTheCancelGraceWaitsForIt: NG-07 holds even when the owner
// closes right after cancelling: the session ends at once, the termination
// waits out the grace.
func TestCloseDuringTheCancelGraceWaitsForIt(t *testing.T) {
	record := t.TempDir() + "/record"
	cfg, _ := testConfig(serverArgv("record:"+record, "out:"+q(ready), "waiteof")...)
	cfg.CancelGrace = 300 * time.Millisecond
	c := startReady(t, cfg)
	asked := time.Now()
	c.RequestCancelled()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	wantKind(t, c.Err(), failure.ErrShutdown)
	if eof := readRecord(t, record)["eof"]; eof.Sub(asked) < cfg.CancelGrace {
		t.Fatalf("stdin closed %v after RequestCancelled; want at least the grace %v", eof.Sub(asked), cfg.CancelGrace)
	}
}
