package stdiofake

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// TestMain lets this test binary run `fakeserver` as a subcommand.
func TestMain(m *testing.M) {
	selfexec.Dispatch()
	os.Exit(m.Run())
}

// processDeadline bounds every wait for a fake subprocess (real time).
const processDeadline = 5 * time.Second

// fakeProcess is a fake run as a subprocess in its own process group, as a
// client would spawn it.
type fakeProcess struct {
	t      *testing.T
	cmd    *exec.Cmd
	record string
	stdin  io.WriteCloser
	lines  chan string
	exited chan struct{} // closed by the cleanup: stop reading stdout
}

func startProcess(t *testing.T, o Options) *fakeProcess {
	t.Helper()
	if o.Record == "" {
		o.Record = filepath.Join(t.TempDir(), "record.jsonl")
	}
	argv := selfexec.Command("fakeserver", o.Args()...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &fakeProcess{t: t, cmd: cmd, record: o.Record, stdin: stdin, lines: make(chan string, 64), exited: make(chan struct{})}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			case <-p.exited:
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(p.exited)
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		p.wait()
		if rec, err := ReadRecord(p.record); err == nil {
			KillLeftovers(rec)
		}
	})
	return p
}

// wait waits for the fake to exit and returns its status; the cleanup's
// SIGKILL covers a fake that overstays the deadline.
func (p *fakeProcess) wait() int {
	p.t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil && !strings.Contains(err.Error(), "Wait was already called") {
			p.t.Errorf("wait for fake: %v", err)
		}
		return 0
	case <-time.After(processDeadline):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		p.t.Fatalf("fake still running after %s", processDeadline)
	}
	return -1
}

// ping sends a ping and waits for its answer: proof that the fake is up,
// its signal handler installed.
func (p *fakeProcess) ping() {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"); err != nil {
		p.t.Fatal(err)
	}
	select {
	case l := <-p.lines:
		if m, err := jsonrpc.Decode([]byte(l)); err != nil || m.Kind() != jsonrpc.KindResult {
			p.t.Fatalf("ping answered %q; want a result", l)
		}
	case <-time.After(processDeadline):
		p.t.Fatalf("no answer to ping within %s", processDeadline)
	}
}

func (p *fakeProcess) readRecord() *Record {
	p.t.Helper()
	r, err := ReadRecord(p.record)
	if err != nil {
		p.t.Fatal(err)
	}
	return r
}

func wantEvents(t *testing.T, r *Record, types ...string) {
	t.Helper()
	for _, typ := range types {
		if _, ok := r.First(typ); !ok {
			t.Errorf("record has no %s event; events: %+v", typ, r.Events)
		}
	}
}

func TestGrandchild(t *testing.T) {
	for _, cleanup := range []string{"process group", "KillLeftovers"} {
		t.Run(cleanup, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "alive")
			p := startProcess(t, Options{Case: "grandchild", File: marker, Delay: processDeadline, Watchdog: 2 * processDeadline})
			p.stdin.Close()
			if code := p.wait(); code != 0 {
				t.Fatalf("fake exited %d on stdin EOF; want 0", code)
			}
			r := p.readRecord()
			wantEvents(t, r, EventStart, EventChild, EventStdinEOF, EventExit)
			if e, _ := r.First(EventExit); e.Detail != "stdin closed" {
				t.Errorf("exit detail %q; want %q", e.Detail, "stdin closed")
			}
			children := r.Children()
			if len(children) != 1 {
				t.Fatalf("record names children %v; want one", children)
			}
			child := children[0]
			if !Alive(child) {
				t.Fatalf("grandchild %d is gone before the client ended it", child)
			}
			switch cleanup {
			case "process group":
				pgid, err := syscall.Getpgid(child)
				if err != nil {
					t.Fatal(err)
				}
				if pgid != p.cmd.Process.Pid {
					t.Errorf("grandchild in process group %d; want the fake's, %d", pgid, p.cmd.Process.Pid)
				}
				if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
			case "KillLeftovers":
				if killed := KillLeftovers(r); !slices.Equal(killed, []int{child}) {
					t.Errorf("KillLeftovers killed %v; want [%d]", killed, child)
				}
			}
			if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("marker file: %v; want it absent", err)
			}
		})
	}
}

func TestSigtermExits(t *testing.T) {
	p := startProcess(t, Options{Case: "close-ignore-eof", Watchdog: processDeadline})
	p.ping()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(); code != 0 {
		t.Errorf("fake exited %d on SIGTERM; want 0", code)
	}
	r := p.readRecord()
	wantEvents(t, r, EventStart, EventSigterm)
	if r.ExitedByItself() {
		t.Error("ExitedByItself = true after SIGTERM; want false")
	}
}

func TestStubbornWatchdog(t *testing.T) {
	p := startProcess(t, Options{Case: "never-answers-stubborn", Watchdog: 300 * time.Millisecond})
	p.ping()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Errorf("fake exited %d by its watchdog; want 0", code)
	}
	r := p.readRecord()
	wantEvents(t, r, EventSigterm)
	if e, ok := r.First(EventExit); !ok || e.Detail != "watchdog" {
		t.Errorf("exit %+v; want detail watchdog", e)
	}
}

func TestMainFlags(t *testing.T) {
	argv := selfexec.Command("fakeserver", "--list")
	out, err := exec.Command(argv[0], argv[1:]...).Output()
	if err != nil {
		t.Fatalf("--list: %v", err)
	}
	for _, id := range CaseIDs() {
		if !strings.Contains(string(out), id+" ") {
			t.Errorf("--list lacks %s:\n%s", id, out)
		}
	}
	for _, args := range [][]string{{"--case", "nope"}, {"--bogus"}, {}, {"--case", "damaged", "--shape", "x"}} {
		argv := selfexec.Command("fakeserver", args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("%q: %v; want exit status 2", args, err)
		}
		if stderr.Len() == 0 {
			t.Errorf("%q: nothing on stderr; want what was wrong", args)
		}
	}
}
