package stdio

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// spawn starts the server in its own process group, its stdin, stdout and
// stderr connected to pipes whose other ends the client keeps. Under the
// stderr-inherited variant the server writes to this process's stderr
// instead, as ST-07 permits, and there is no stderr pipe.
func (c *Client) spawn(program string) error {
	var parent, child []*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			_ = f.Close()
		}
	}
	for i := 0; i < 3; i++ {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(parent)
			closeAll(child)
			return failure.Wrap(failure.ErrConnection, "start", fmt.Errorf("create pipe: %w", err))
		}
		if i == 0 { // stdin: the child reads
			r, w = w, r
		}
		parent, child = append(parent, r), append(child, w)
	}
	c.stdin, c.stdout, c.stderr = parent[0], parent[1], parent[2]
	stderr := child[2]
	if c.cfg.Mutant == mutant.StderrInherited {
		stderr = os.Stderr
	}
	c.cmd = &exec.Cmd{
		Path:        program,
		Args:        c.cfg.Command,
		Env:         c.cfg.environ(),
		Dir:         c.cfg.Dir,
		Stdin:       child[0],
		Stdout:      child[1],
		Stderr:      stderr,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	c.startedAt = time.Now()
	err := c.cmd.Start()
	closeAll(child)
	if err != nil {
		closeAll(parent)
		return failure.Wrap(failure.ErrConnection, "start",
			fmt.Errorf("start server %q: %w; check Command and Dir", c.cfg.Command[0], err))
	}
	c.pid = c.cmd.Process.Pid
	return nil
}

// waitProcess reaps the server and marks it exited.
func (c *Client) waitProcess() {
	_ = c.cmd.Wait()
	close(c.exited)
}

// teardown starts terminating the process tree, once; Close, protocol
// failures, process exit and RequestCancelled all end through it.
func (c *Client) teardown() {
	c.stopOnce.Do(func() { go c.terminate() })
}

// terminate stops the server (LC-20, NG-07, NG-08) once a requested cancel
// grace is over, then closes the client's pipe ends so the reader and the
// stderr drain end, waits for them, and marks the client stopped.
func (c *Client) terminate() {
	if c.cancelRequested.Load() {
		<-c.graceOver // at most CancelGrace (NG-07)
	}
	if c.stopProcess() {
		// The leader is reaped; descendants left in its group die now.
		c.signalTree(syscall.SIGKILL)
	} else {
		c.closeErr = failure.New(failure.ErrShutdown, "close",
			fmt.Sprintf("server (pid %d) still running %v after SIGTERM; left running", c.pid, c.cfg.ShutdownGrace))
	}
	c.closeStdin()
	_ = c.stdout.Close()
	_ = c.stderr.Close()
	<-c.readerDone
	<-c.stderrDone
	close(c.stopped)
}

// stopProcess closes stdin, waits ShutdownGrace, sends SIGTERM to the process
// group, waits ShutdownGrace, sends SIGKILL and waits for the reap; it stops
// early once the server has exited. It reports whether the leader was reaped.
func (c *Client) stopProcess() bool {
	steps := []func(){c.closeStdin, func() { c.signalTree(syscall.SIGTERM) }}
	switch c.cfg.Mutant {
	case mutant.NoSigterm:
		steps = steps[:1]
	case mutant.SigtermBeforeEOF:
		steps[0], steps[1] = steps[1], steps[0]
	}
	for _, step := range steps {
		step()
		if c.waitExit(c.cfg.ShutdownGrace) {
			return true
		}
	}
	if c.cfg.Mutant == mutant.NoSigkill {
		return false
	}
	c.signalTree(syscall.SIGKILL)
	// SIGKILL cannot be caught or ignored: the reap follows.
	<-c.exited
	return true
}

// closeStdin closes the server's stdin, once: the graceful end of a stdio
// session (LC-20). A Send blocked on a full pipe returns.
func (c *Client) closeStdin() {
	c.stdinOnce.Do(func() { _ = c.stdin.Close() })
}

// waitExit waits up to d for the server to be reaped.
func (c *Client) waitExit(d time.Duration) bool { return waitClosed(c.exited, d) }

// waitClosed waits up to d for ch to close.
func waitClosed(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// signalTree sends sig to the server's whole process group, so descendants
// started through wrappers are reached too (NG-08). A group already gone
// (ESRCH) is fine.
func (c *Client) signalTree(sig syscall.Signal) {
	if c.cfg.Mutant == mutant.NoProcessGroup {
		_ = c.cmd.Process.Signal(sig)
		return
	}
	_ = syscall.Kill(-c.pid, sig)
}
