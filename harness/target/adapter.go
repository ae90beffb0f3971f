package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/harness/reaper"
)

// Invocation is one run of a client adapter for one check.
type Invocation struct {
	Case          string            // MCPCONFORM_CASE
	Transport     string            // "stdio" or "http"
	ServerCommand []string          // stdio: the server the adapter's client launches
	ServerURL     string            // http: the endpoint
	CallTimeout   time.Duration     // MCPCONFORM_CALL_TIMEOUT_MS
	Parallel      bool              // MCPCONFORM_PARALLEL=1
	Limits        map[string]any    // MCPCONFORM_LIMITS, optional
	AuthToken     string            // MCPCONFORM_AUTH_TOKEN, optional
	Headers       map[string]string // MCPCONFORM_HEADERS, optional
	Era           string            // MCPCONFORM_ERA, optional: "legacy" or "modern"
	Fixtures      string            // MCPCONFORM_FIXTURES, optional: a fixtures file's path
	Answers       Answers           // MCPCONFORM_SAMPLING, MCPCONFORM_ELICITATION, MCPCONFORM_ROOTS, optional
	Deadline      time.Duration     // the adapter is killed (with its process group) after this long
}

// maxCapture bounds what is kept of an adapter's stdout and stderr.
const maxCapture = 4 << 20

// Run is the result of running an adapter.
type Run struct {
	Output
	ExitCode int           // -1 when killed
	Killed   bool          // the deadline passed and the adapter was killed
	Duration time.Duration // launch to exit
	Exited   time.Time     // when it exited (or was killed)
	Stdout   []byte        // at most 4 MiB
	Stderr   []byte        // at most 4 MiB
	// Left are the processes the adapter left alive once it exited by
	// itself (given LeftGrace to end them): in its process group, or
	// started from it anywhere else. They are seen before the harness
	// kills them, which it then does.
	Left []reaper.Proc
}

// LeftGrace is how long the processes an adapter started may take to end
// after it exited before they count as left alive.
const LeftGrace = 500 * time.Millisecond

// Adapter is a client adapter program.
type Adapter struct {
	Command []string
	Env     []string // extra environment entries (NAME=value) for every run
}

// Run runs the adapter once, in its own process group, and kills the group
// at the invocation's deadline or when ctx ends.
func (a Adapter) Run(ctx context.Context, inv Invocation) (*Run, error) {
	if len(a.Command) == 0 {
		return nil, errors.New("client adapter: empty command; pass it after --, e.g. mcpconform client -- ./my-adapter")
	}
	env, err := inv.environment()
	if err != nil {
		return nil, err
	}
	if reaper.Stopped() {
		return nil, reaper.ErrStopped
	}
	cmd := exec.Command(a.Command[0], a.Command[1:]...)
	owner := reaper.NewOwner("client")
	cmd.Env = append(append(append(inherited(), a.Env...), env...), reaper.Env(owner))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, stderr := &boundedBuffer{max: maxCapture}, &boundedBuffer{max: maxCapture}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	if err := reaper.StartTracked(cmd); err != nil {
		return nil, fmt.Errorf("client adapter %q: %w; check the path after --", a.Command[0], err)
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { err := cmd.Wait(); reaper.Untrack(pgid); done <- err }()
	deadline := inv.Deadline
	if deadline <= 0 {
		deadline = time.Minute
	}
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	r := &Run{}
	select {
	case err = <-done:
	case <-timer.C:
		r.Killed = true
	case <-ctx.Done():
		r.Killed = true
	}
	if r.Killed {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		err = <-done
	}
	r.Exited = time.Now()
	r.Duration = r.Exited.Sub(start)
	if !r.Killed {
		r.Left = reaper.WaitLeft(owner, pgid, LeftGrace)
	}
	// Whatever the adapter left, in its own group or out of it, goes too.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	reaper.Reap(owner, 2*time.Second)
	r.ExitCode = cmd.ProcessState.ExitCode()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return nil, fmt.Errorf("client adapter %q: %w", a.Command[0], err)
	}
	r.Stdout, r.Stderr = stdout.Bytes(), stderr.Bytes()
	r.Output = ParseOutput(r.Stdout)
	return r, nil
}

// inherited is the harness's environment without MCPCONFORM_AUTH_TOKEN:
// the harness alone decides which checks give the adapter a token (none
// for the http.client.auth.* checks, whose client must authorize itself),
// so a value in the harness's own environment never reaches the adapter.
func inherited() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, EnvAuthToken+"=") })
}

func (inv Invocation) environment() ([]string, error) {
	env := []string{EnvCase + "=" + inv.Case, EnvTransport + "=" + inv.Transport}
	if inv.ServerCommand != nil {
		b, err := json.Marshal(inv.ServerCommand)
		if err != nil {
			return nil, err
		}
		env = append(env, EnvServerCommand+"="+string(b))
	}
	if inv.ServerURL != "" {
		env = append(env, EnvServerURL+"="+inv.ServerURL)
	}
	if inv.CallTimeout > 0 {
		env = append(env, EnvCallTimeoutMS+"="+strconv.FormatInt(inv.CallTimeout.Milliseconds(), 10))
	}
	if inv.Parallel {
		env = append(env, EnvParallel+"=1")
	}
	if inv.AuthToken != "" {
		env = append(env, EnvAuthToken+"="+inv.AuthToken)
	}
	if len(inv.Headers) > 0 {
		b, err := json.Marshal(inv.Headers)
		if err != nil {
			return nil, err
		}
		env = append(env, EnvHeaders+"="+string(b))
	}
	if inv.Era != "" {
		env = append(env, EnvEra+"="+inv.Era)
	}
	if inv.Fixtures != "" {
		env = append(env, EnvFixtures+"="+inv.Fixtures)
	}
	if len(inv.Limits) > 0 {
		b, err := json.Marshal(inv.Limits)
		if err != nil {
			return nil, err
		}
		env = append(env, EnvLimits+"="+string(b))
	}
	return append(env, inv.Answers.environ()...), nil
}

// boundedBuffer keeps the first max bytes written to it and discards the rest.
type boundedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	max int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
		} else {
			b.buf.Write(p)
		}
	}
	return len(p), nil
}

func (b *boundedBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]byte(nil), b.buf.Bytes()...)
}
