// Package stdio is the reference stdio client transport of mcpconform: it
// launches an MCP server as a child process in its own process group,
// exchanges newline-delimited JSON-RPC over its stdin and stdout, drains its
// stderr into a bounded tail, and tears the process tree down with the seed's
// discipline (close stdin, grace, SIGTERM, grace, SIGKILL, to the group).
//
// It keeps rules NG-01 … NG-12 of SEMANTICS.md and ST-01 … ST-10, LC-20 of
// the requirements digest. Which mutant (harness/mutant) it runs is chosen
// by Config.Mutant.
//
// The server side of the transport is package stdioserver.
package stdio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Client is one stdio session with one server process. Its methods are safe
// for concurrent use.
type Client struct {
	cfg       Config
	report    io.Writer
	cmd       *exec.Cmd
	pid       int
	startedAt time.Time
	stdin     *os.File // parent ends of the pipes
	stdout    *os.File
	stderr    *os.File
	tail      *tail

	incoming chan *jsonrpc.Message
	wmu      sync.Mutex // serialises Send

	mu   sync.Mutex
	err  *failure.Error // why the session ended; nil while alive
	done chan struct{}  // closed when err is set

	cancelRequested atomic.Bool
	answersInvalid  atomic.Bool // AnswerInvalidRequests was called
	cancelOnce      sync.Once
	graceOver       chan struct{} // closed when a requested cancel grace is over
	stdinOnce       sync.Once
	stopOnce        sync.Once
	closeErr        error         // set by terminate before stopped closes
	stopped         chan struct{} // teardown finished
	exited          chan struct{} // the server was reaped
	readerDone      chan struct{}
	stderrDone      chan struct{}
}

// Start validates cfg, then launches the server and starts reading its
// stdout and draining its stderr. Nothing is spawned when cfg is invalid or
// the command cannot be found.
func Start(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	program, err := cfg.program()
	if err != nil {
		return nil, err
	}
	c := &Client{
		cfg:        cfg,
		report:     cfg.Report,
		tail:       newTail(cfg.MaxStderrBytes),
		incoming:   make(chan *jsonrpc.Message),
		done:       make(chan struct{}),
		graceOver:  make(chan struct{}),
		stopped:    make(chan struct{}),
		exited:     make(chan struct{}),
		readerDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
	}
	if c.report == nil {
		c.report = os.Stderr
	}
	if err := c.spawn(program); err != nil {
		return nil, err
	}
	go c.waitProcess()
	go c.readStdout()
	go c.drainStderr()
	return c, nil
}

// Send writes m to the server's stdin as exactly one compact JSON line
// (ST-02, ST-04). Sends are serialised. Once the session is over it returns
// a failure of kind failure.ErrShutdown (closed by its owner) or
// failure.ErrConnection (ended otherwise, or the pipe broke).
func (c *Client) Send(m *jsonrpc.Message) error {
	line, err := c.encode(m)
	if err != nil {
		return fmt.Errorf("stdio: encode %s: %w", m.Kind(), err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.Err(); err != nil {
		return sendAfterEnd(err)
	}
	if _, err := c.stdin.Write(line); err != nil {
		if ended := c.Err(); ended != nil {
			return sendAfterEnd(ended)
		}
		return failure.Wrap(failure.ErrConnection, "write stdin", err)
	}
	return nil
}

// encode renders m as one line with its newline.
func (c *Client) encode(m *jsonrpc.Message) ([]byte, error) {
	b, err := jsonrpc.Encode(m)
	if err != nil {
		return nil, err
	}
	switch {
	case c.cfg.Mutant == mutant.StdinBlankLines:
		return append(b, '\n', '\n'), nil
	case c.cfg.Mutant == mutant.InitializeBatched && m.Method == "initialize":
		b = append(append([]byte{'['}, b...), ']')
	}
	return append(b, '\n'), nil
}

// sendAfterEnd is Send's error once the session ended for reason ended.
func sendAfterEnd(ended error) error {
	if errors.Is(ended, failure.ErrShutdown) {
		return failure.New(failure.ErrShutdown, "write stdin", "the session is closed")
	}
	return failure.New(failure.ErrConnection, "write stdin", "the session has ended ("+ended.Error()+")")
}

// Incoming delivers the server's messages in order (a batch line's elements
// in order). It is closed once the session has ended and the reader stopped.
func (c *Client) Incoming() <-chan *jsonrpc.Message { return c.incoming }

// Done is closed when the session ends: a protocol failure, the server
// exiting, a cancelled request's termination, or Close.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err says why the session ended, as a *failure.Error of kind protocol,
// connection, cancelled or shutdown; nil while the session is alive.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		return nil
	}
	return c.err
}

// ended reports whether the session is over.
func (c *Client) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// end ends the session with f unless it already ended; it reports whether
// this call ended it.
func (c *Client) end(f *failure.Error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return false
	}
	c.err = f
	close(c.done)
	// Wake the reader if it waits for stdout, so that it closes Incoming.
	_ = c.stdout.SetReadDeadline(time.Now())
	return true
}

// fail ends the session with f and tears the process down in the background.
func (c *Client) fail(f *failure.Error) {
	if c.end(f) {
		c.teardown()
	}
}

// StartedAt is when the server was launched; the startup timeout (NG-09)
// runs from here.
func (c *Client) StartedAt() time.Time { return c.startedAt }

// PID is the server's process id, which is also its process group id.
func (c *Client) PID() int { return c.pid }

// StderrTail returns the last MaxStderrBytes bytes the server wrote to
// stderr, for diagnostics only: they must never be put in an error, a report
// or a log (NG-06).
func (c *Client) StderrTail() []byte { return c.tail.Bytes() }

// RequestCancelled applies the NG-07 policy after a cancelled or timed-out
// request, once the session has sent notifications/cancelled: in the
// background it waits CancelGrace (or until the server exits), then ends the
// session with a failure of kind failure.ErrCancelled and terminates the
// process tree as Close does. It returns at once. A Close or a protocol
// failure during the grace ends the session at once, but the termination
// still waits for the grace to pass.
//
// Under the no-cancel-teardown variant it does nothing: the session goes on
// after the cancel, as LC-31 permits.
func (c *Client) RequestCancelled() {
	if c.cfg.Mutant == mutant.NoCancelTeardown {
		return
	}
	c.cancelOnce.Do(func() {
		c.cancelRequested.Store(true)
		go c.terminateAfterGrace()
	})
}

// terminateAfterGrace is RequestCancelled's background half. Until it
// closes graceOver, no teardown starts: not even Close cuts the grace short.
func (c *Client) terminateAfterGrace() {
	defer close(c.graceOver)
	if c.cfg.Mutant != mutant.NoCancelGrace {
		t := time.NewTimer(c.cfg.CancelGrace)
		defer t.Stop()
		select {
		case <-t.C:
		case <-c.exited:
		}
	}
	c.fail(failure.New(failure.ErrCancelled, "cancel",
		fmt.Sprintf("server terminated after a cancelled request (cancel grace %v)", c.cfg.CancelGrace)))
}

// Close ends the session and terminates the server (LC-20, NG-07, NG-08):
// close stdin, wait up to ShutdownGrace for the exit, SIGTERM the process
// group, wait ShutdownGrace, SIGKILL the group, reap, and SIGKILL the group
// once more for descendants left behind. After RequestCancelled the
// termination first waits out the rest of the cancel grace. Close blocks
// until the server is reaped and the client's goroutines have ended. It is
// idempotent and safe concurrently with everything else; it returns nil once
// the server is gone, whatever it took.
func (c *Client) Close() error {
	c.end(failure.New(failure.ErrShutdown, "close", "the session was closed by its owner"))
	c.teardown()
	<-c.stopped
	return c.closeErr
}

// stdoutEnded ends the session when stdout reaches its end: the server
// exited or closed its stdout (err is io.EOF), or reading failed.
func (c *Client) stdoutEnded(err error) {
	if c.ended() || c.cfg.Mutant == mutant.IgnoreExit {
		return
	}
	detail := "server closed its stdout"
	if !errors.Is(err, io.EOF) {
		detail = "reading server stdout failed: " + err.Error()
	}
	if c.waitExit(c.cfg.ShutdownGrace) {
		detail = "server exited (" + c.cmd.ProcessState.String() + ")"
	}
	kind := failure.ErrConnection
	if c.cancelRequested.Load() {
		kind = failure.ErrCancelled
		detail += " after a cancelled request"
	}
	if c.cfg.Mutant == mutant.LeakStderr {
		waitClosed(c.stderrDone, c.cfg.ShutdownGrace)
		detail += "; stderr: " + string(c.tail.Bytes())
	}
	c.fail(failure.New(kind, opReadStdout, detail))
}
