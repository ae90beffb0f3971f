package mcpconformtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// TB is what Server and Client need of a test: *testing.T is one. Each
// check is a subtest, run through Run.
type TB[T any] interface {
	Helper()
	Name() string
	Deadline() (time.Time, bool)
	TempDir() string
	Cleanup(func())
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	Run(name string, f func(T)) bool
}

// Server certifies a server with the server checks, each a subtest of t
// named by its ID.
func Server[T TB[T]](t T, target Target, opts ...Option) {
	t.Helper()
	var args []string
	switch {
	case target.handler != nil && target.url != "":
		t.Fatalf("mcpconformtest.Server: both a Handler and a URL; give one of them")
		return
	case target.handler != nil:
		args = []string{"--url", serveHandler(t, target.handler)}
	case target.url != "":
		args = []string{"--url", target.url}
	}
	if len(target.command) > 0 {
		args = append(args, "--")
		args = append(args, target.command...)
	}
	if len(args) == 0 {
		t.Fatalf("mcpconformtest.Server: no target; give Handler(h), URL(u) or Command(argv...)")
		return
	}
	certify(t, check.Server, args, opts)
}

// Client certifies a client through its adapter (argv: the adapter
// command, which docs/client.md describes) with the
// client checks, each a subtest of t named by its ID.
func Client[T TB[T]](t T, adapter []string, opts ...Option) {
	t.Helper()
	if len(adapter) == 0 {
		t.Fatalf("mcpconformtest.Client: no adapter; give the argv of the adapter program")
		return
	}
	certify(t, check.Client, append([]string{"--"}, adapter...), opts)
}

// serveHandler serves h at /mcp of a listener on 127.0.0.1 until the test
// ends, and returns the endpoint's URL.
func serveHandler[T TB[T]](t T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("mcpconformtest: listening on 127.0.0.1 for the handler: %v", err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// reportMargin is the time left, before go test's -timeout, for the run
// to stop its checks and write its reports, and for the test to judge
// them: the run's budget is the test's time less this.
const reportMargin = 15 * time.Second

// certify runs the checks of role in a child process of the test binary
// and turns each check's outcome into a subtest.
func certify[T TB[T]](t T, role check.Role, target []string, opts []Option) {
	t.Helper()
	var c config
	for _, o := range opts {
		o(&c)
	}
	ids, all, err := selection(role, t.Name(), c.only, testing.Short(), slices.Contains(c.flags, "--fuzz"))
	if err != nil {
		t.Fatalf("mcpconformtest: go test's -run or -skip: %v", err)
		return
	}
	if !all && len(ids) == 0 {
		t.Skipf("no %s check selected (Only, -run, -skip and -short select none)", role)
		return
	}
	dir := t.TempDir()
	if c.json == "" {
		c.json = filepath.Join(dir, "report.json")
	}
	args := []string{string(role), "--color", "never"}
	if deadline, ok := t.Deadline(); ok {
		left := time.Until(deadline) - reportMargin
		if left <= 0 {
			t.Fatalf("mcpconformtest: go test's -timeout leaves %s, too little for a run; raise -timeout", time.Until(deadline).Round(time.Second))
			return
		}
		args = append(args, "--run-timeout", left.Round(time.Second).String())
	}
	args = append(args, c.flags...)
	args = append(args, "--json", c.json)
	if !all {
		args = append(args, "--only", strings.Join(ids, ","))
	}
	args = append(args, target...)
	log := filepath.Join(dir, "mcpconform.log")
	code, err := runChild(t, args, log)
	if err != nil {
		t.Fatalf("mcpconformtest: %v", err)
		return
	}
	ix, err := readIndex(c.json)
	if err != nil {
		t.Fatalf("mcpconformtest: mcpconform %s exited %d without its report (%v):\n%s", role, code, err, tail(log))
		return
	}
	if ix.Stopped != "" {
		t.Fatalf("mcpconformtest: the run stopped before its checks: %s", ix.Stopped)
		return
	}
	t.Logf("mcpconform %s: seed %d, profile %s; %s", role, ix.Seed, ix.Profile, ix.Scores)
	judged := false
	for _, ch := range ix.Checks {
		if ch.Outcome == check.Skipped && ch.Message == report.NotSelected {
			continue
		}
		judged = judged || ch.Outcome == check.Fail || ch.Outcome == check.Stale || ch.Outcome == check.Error
		t.Run(ch.ID, func(st T) { judge(st, ch, c.failOn) })
	}
	switch {
	case ix.Interrupted:
		t.Errorf("mcpconformtest: the run was interrupted by %s (go test's -timeout, less %s, or RunTimeout): the checks not finished are SKIPPED", ix.InterruptedBy, reportMargin)
	case code != 0 && !judged:
		t.Errorf("mcpconformtest: mcpconform %s exited %d, though no check failed:\n%s", role, code, tail(log))
	}
}

// judge makes a check's outcome the subtest's: FAIL, STALE and ERROR fail
// it with the check's message (the requirement, what was expected and
// observed, the transcript's tail); WARN, HARDENED and INFO are logged, or
// fail it when failOn names them; what was not judged is skipped with why.
func judge[T TB[T]](t T, c report.Check, failOn []check.Outcome) {
	t.Helper()
	text := fmt.Sprintf("%s [%s] %s\n%s", c.Outcome, c.ID, c.Title, c.Message)
	switch c.Outcome {
	case check.Pass:
	case check.ExpectedFail:
		t.Logf("%s (expected: the baseline lists it)", text)
	case check.Fail, check.Stale, check.Error:
		t.Errorf("%s", text)
	case check.Warn, check.HardenedMiss, check.Info:
		if slices.Contains(failOn, c.Outcome) {
			t.Errorf("%s", text)
		} else {
			t.Logf("%s", text)
		}
	default: // UNIMPLEMENTED, N/A, SKIPPED
		t.Skipf("%s: %s", c.Outcome, c.Message)
	}
}

// childGrace is how long the child has, once told to stop (SIGTERM), to
// stop its checks and reap its processes before it is killed.
const childGrace = 10 * time.Second

// runChild runs mcpconform with args in a child process of the test binary
// (its console to log) and returns its exit status. The child leads a
// process group of its own and reaps what it starts. It gets SIGTERM
// should the test binary die first (go test's -timeout panics); were it
// still running when the test ends, it is stopped and its group killed.
func runChild[T TB[T]](t T, args []string, log string) (int, error) {
	t.Helper()
	argv := selfexec.Command(args[0], args[1:]...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	if _, set := os.LookupEnv("GORACE"); !set {
		// Under -race a child would pause a second at exit and look like
		// a server that ignores stdin EOF.
		cmd.Env = append(cmd.Env, "GORACE=atexit_sleep_ms=0")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	f, err := os.Create(log)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	// The death signal follows the thread that started the child: it stays
	// this goroutine's until the child is gone.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("starting the run (%s): %w", argv[0], err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { stopChild(cmd, done) })
	err = cmd.Wait()
	close(done)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 0, fmt.Errorf("waiting for the run: %w", err)
	}
	return cmd.ProcessState.ExitCode(), nil
}

// stopChild stops a child not yet waited for (done open): SIGTERM, which
// stops its checks and reaps its processes, then, past childGrace, SIGKILL
// to its group.
func stopChild(cmd *exec.Cmd, done <-chan struct{}) {
	select {
	case <-done:
		return
	default:
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(childGrace):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// readIndex reads the JSON index a run wrote.
func readIndex(path string) (*report.Index, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ix report.Index
	if err := json.Unmarshal(b, &ix); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &ix, nil
}

// tailBytes is how much of the run's console a test failure shows.
const tailBytes = 4 << 10

// tail is the end of the run's console log.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no console: " + err.Error() + ")"
	}
	if len(b) > tailBytes {
		b = append([]byte("…"), b[len(b)-tailBytes:]...)
	}
	return string(b)
}
