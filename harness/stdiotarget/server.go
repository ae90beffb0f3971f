// Package stdiotarget runs a stdio server under test: its process in its
// own process group with every descendant marked for the reaper, the
// JSON-RPC messages it writes to stdout and what else it writes there, its
// stderr drained and counted but never kept. The server checks reach it
// through this package; a client under test is reached through package
// target's adapter contract.
package stdiotarget

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/reaper"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// maxServerLine bounds one stdout line of a server under test: as much as
// the HTTP checks read of one body or SSE event.
const maxServerLine = 4 << 20

// Server is a stdio server under test: its process (in its own
// process group), the JSON-RPC messages it writes to stdout, and what else
// it writes there. stderr is drained and counted, never kept (it may hold
// secrets).
type Server struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	pgid    int
	owner   string // the reaper's mark on the server and its descendants
	started time.Time
	log     *transcript.Log // nil: nothing recorded

	messages chan *jsonrpc.Message
	exited   chan struct{} // closed when the process has been reaped

	mu          sync.Mutex
	nonMessages []string // descriptions (class and length, never content) of stdout lines that are not messages
	// badIDs, beside each entry of nonMessages, holds the id a response
	// that is invalid for its id alone carried (of a forbidden type, at
	// most 64 bytes); "" for any other line.
	badIDs      []string
	batchLines  int // stdout lines that held a JSON-RPC batch array
	stderrBytes int64
	exitState   *os.ProcessState
	exitedAfter time.Duration
	// ended is set once the harness closed stdin, signalled or killed the
	// server: an exit after that is the harness's doing.
	ended bool
}

// Options are how a Server is started; the zero value adds
// nothing to the environment and records nothing.
type Options struct {
	// Env is added to the harness's environment.
	Env []string
	// Log, when set, records every line written to the server's stdin
	// (c2s) and to its stdout (s2c), and a note when it exits: its status
	// and how many bytes it wrote to stderr, never those bytes.
	Log *transcript.Log
}

// Start launches argv as opts say.
func Start(argv []string, opts Options) (*Server, error) {
	if len(argv) == 0 {
		return nil, errors.New("server command: empty; pass it after --, e.g. mcpconform server -- ./my-server")
	}
	if reaper.Stopped() {
		return nil, reaper.ErrStopped
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	owner := reaper.NewOwner("server")
	cmd.Env = append(append(os.Environ(), opts.Env...), reaper.Env(owner))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := reaper.StartTracked(cmd); err != nil {
		return nil, fmt.Errorf("server command %q: %w; check the path after --", argv[0], err)
	}
	s := &Server{cmd: cmd, stdin: stdin, pgid: cmd.Process.Pid, owner: owner, started: time.Now(), log: opts.Log,
		messages: make(chan *jsonrpc.Message, 1024), exited: make(chan struct{})}
	var drained sync.WaitGroup
	drained.Add(2)
	go func() { defer drained.Done(); s.readStdout(stdout) }()
	go func() { defer drained.Done(); s.drainStderr(stderr) }()
	go func() {
		drained.Wait()
		_ = cmd.Wait()
		reaper.Untrack(cmd.Process.Pid)
		s.mu.Lock()
		s.exitState, s.exitedAfter = cmd.ProcessState, time.Since(s.started)
		how, stderr := "on its own", s.stderrBytes
		if s.ended {
			how = "once the harness ended it"
		}
		s.mu.Unlock()
		if s.log != nil {
			s.log.Notef("the server process ended (%s) %s, %s after it started; it wrote %d bytes to stderr", cmd.ProcessState, how, roughly(s.exitedAfter), stderr)
		}
		close(s.exited)
	}()
	return s, nil
}

func (s *Server) readStdout(r io.Reader) {
	defer close(s.messages)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, size, tooLong, err := jsonrpc.ReadLine(br, maxServerLine)
		switch {
		case tooLong:
			s.oversized(size)
		case err == nil:
			s.classify(line)
		}
		if err != nil {
			return
		}
	}
}

func (s *Server) classify(line []byte) {
	if s.log != nil {
		s.log.Add(transcript.ServerToClient, string(line))
	}
	switch class := jsonrpc.ClassifyLine(line); class {
	case jsonrpc.ClassMessage:
		if m, err := jsonrpc.Decode(line); err == nil {
			s.messages <- m
			return
		}
		if id, ok := badIDResponse(line); ok {
			s.noteID(fmt.Sprintf("a response of %d bytes whose id is of a forbidden type", len(line)), id)
			return
		}
		s.note(fmt.Sprintf("an invalid JSON-RPC object of %d bytes", len(line)))
	case jsonrpc.ClassBatch:
		ms, err := jsonrpc.DecodeBatch(line)
		if err != nil {
			s.note(fmt.Sprintf("an invalid batch of %d bytes", len(line)))
			return
		}
		s.mu.Lock()
		s.batchLines++
		s.mu.Unlock()
		for _, m := range ms {
			s.messages <- m
		}
	default:
		s.note(fmt.Sprintf("a %s line of %d bytes", class, len(line)))
	}
}

// oversized records a line over maxServerLine: by its length only, for it
// is not kept (whatever a server writes, what the harness holds is bounded).
func (s *Server) oversized(size int64) {
	what := fmt.Sprintf("a line of %d bytes, over the %d MiB the harness reads of one line (not kept)", size, maxServerLine>>20)
	if s.log != nil {
		s.log.Notef("the server wrote %s", what)
	}
	s.note(what)
}

func (s *Server) note(what string) { s.noteID(what, "") }

func (s *Server) noteID(what, id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.nonMessages) < 100 {
		s.nonMessages = append(s.nonMessages, what)
		s.badIDs = append(s.badIDs, id)
	}
}

// badIDResponse reports whether line would be a valid response but for
// its id, of a type JSON-RPC forbids, and returns that id as written (a
// server echoing the id of a request it should have refused).
func badIDResponse(line []byte) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || m["id"] == nil || m["method"] != nil || (m["result"] == nil) == (m["error"] == nil) {
		return "", false
	}
	id := bytes.TrimSpace(m["id"])
	if len(id) > 64 {
		return "", false
	}
	m["id"] = json.RawMessage("0")
	fixed, _ := json.Marshal(m)
	if _, err := jsonrpc.Decode(fixed); err != nil {
		return "", false
	}
	return string(id), true
}

// NonMessageIDs is, beside each entry of NonMessages, the id of a
// response that was invalid for its id alone, as written ("" for any
// other line).
func (s *Server) NonMessageIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.badIDs...)
}

func (s *Server) drainStderr(r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		s.mu.Lock()
		s.stderrBytes += int64(n)
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// Send writes one line (raw, plus a newline) to the server's stdin.
func (s *Server) Send(raw []byte) error {
	if s.log != nil {
		s.log.Add(transcript.ClientToServer, string(raw))
	}
	_, err := s.stdin.Write(append(append([]byte(nil), raw...), '\n'))
	if err != nil {
		if exit := s.ExitReport(exitGrace); exit != "" {
			return fmt.Errorf("%w (%s)", err, exit)
		}
	}
	return err
}

// exitGrace is how long ExitReport waits for the reap of a server whose
// stdout or stdin just closed: the exit that closed them follows at once.
const exitGrace = 500 * time.Millisecond

// ExitReport says how the server ended when it ended on its own, waiting
// up to wait for the reap: "the server exited (exit status 3) 12ms after it
// started, having written 40 bytes to stderr". It is "" while the server
// runs, and once the harness closed its stdin, signalled or killed it.
func (s *Server) ExitReport(wait time.Duration) string {
	s.WaitExit(wait)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exitState == nil || s.ended {
		return ""
	}
	return fmt.Sprintf("the server exited (%s) %s after it started, having written %d bytes to stderr",
		s.exitState, roughly(s.exitedAfter), s.stderrBytes)
}

// roughly renders a process's lifetime to the millisecond.
func roughly(d time.Duration) string {
	if d < time.Millisecond {
		return "under 1ms"
	}
	return d.Round(time.Millisecond).String()
}

func (s *Server) markEnded() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
}

// Messages delivers the JSON-RPC messages the server writes, in order; it
// is closed when stdout ends.
func (s *Server) Messages() <-chan *jsonrpc.Message { return s.messages }

// NonMessages describes the stdout lines that were not JSON-RPC messages
// (class and length only).
func (s *Server) NonMessages() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.nonMessages...)
}

// BatchLines is how many stdout lines held a JSON-RPC batch array rather
// than one message.
func (s *Server) BatchLines() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.batchLines
}

// StderrBytes is how much the server wrote to stderr.
func (s *Server) StderrBytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderrBytes
}

// CloseStdin closes the server's stdin (the graceful end of a stdio session).
func (s *Server) CloseStdin() error {
	s.markEnded()
	return s.stdin.Close()
}

// Signal sends sig to the server process itself.
func (s *Server) Signal(sig syscall.Signal) error {
	s.markEnded()
	return syscall.Kill(s.pgid, sig)
}

// WaitExit waits up to d for the process to exit and reports whether it did.
func (s *Server) WaitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.exited:
		return true
	case <-t.C:
		return false
	}
}

// Pid is the server process's id, which is also its process group's.
func (s *Server) Pid() int { return s.pgid }

// Exited reports whether the server process has ended and been reaped.
func (s *Server) Exited() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// WaitGroupGone waits until no live process is left in the server's
// process group or d passes, on exit events; it returns those still alive.
func (s *Server) WaitGroupGone(d time.Duration) []reaper.Proc {
	left := reaper.WaitGone("", s.pgid, d)
	if !reaper.SeesProcesses && syscall.Kill(-s.pgid, 0) == nil {
		// Blind to processes here: the group answering a signal is all
		// that can be seen (a zombie of it counts).
		left = append(left, reaper.Proc{Pid: s.pgid, Comm: "a process of group " + strconv.Itoa(s.pgid)})
	}
	return left
}

// Stop ends the server as a client ends a session (LC-20): it closes
// stdin and waits up to grace for the exit, sends SIGTERM to the process
// group and waits up to grace again, then kills the group. It returns the
// processes of the server's tree (the reaper's mark) still alive grace
// after that: descendants that left the group, a session of their own
// (setsid) or a daemon's, and outlived the server. Kill, which must
// follow, ends them.
func (s *Server) Stop(grace time.Duration) []reaper.Proc {
	_ = s.CloseStdin()
	if !s.WaitExit(grace) {
		_ = syscall.Kill(-s.pgid, syscall.SIGTERM)
		s.WaitExit(grace)
	}
	_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
	s.WaitExit(grace)
	return reaper.WaitGone(s.owner, 0, grace)
}

// Kill ends the server's whole process group and every descendant that
// left it (the reaper's mark, or adopted as an orphan), and waits for the
// reap: boundedly, since a descendant that cleared its environment and
// left the group may still hold stdout open.
func (s *Server) Kill() {
	s.markEnded()
	_ = s.stdin.Close()
	_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
	reaper.Reap(s.owner, 2*time.Second, s.pgid)
	s.WaitExit(5 * time.Second)
	_ = syscall.Kill(-s.pgid, syscall.SIGKILL)
	reaper.Reap(s.owner, time.Second, s.pgid)
}

// Descendants lists the live processes started by the server, in its
// group or out of it, other than the server process itself.
func (s *Server) Descendants() []reaper.Proc { return reaper.Owned(s.owner, s.pgid) }
