package stdiofake

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// maxLineBytes bounds one received line; longer lines are recorded truncated.
const maxLineBytes = 64 << 20

// Serve runs case o.Case on the given streams and returns the exit status the
// fake ends with: 0 on stdin EOF (unless the case ignores it) or when ctx is
// done, the case's own status when it ends itself, 2 when the options are
// invalid (the message goes to stderr). It handles no signals and runs no
// watchdog (Main adds both), so Go tests can drive a case over io.Pipe.
func Serve(ctx context.Context, o Options, stdin io.Reader, stdout, stderr io.Writer, rec *Recorder) int {
	b, err := build(o)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	return serve(ctx, o, b, stdin, stdout, stderr, rec)
}

// build validates the options of case o.Case and returns its behaviour.
func build(o Options) (*behaviour, error) {
	c, ok := cases[o.Case]
	if !ok {
		return nil, fmt.Errorf("fakeserver: unknown case %q; cases: %s", o.Case, strings.Join(CaseIDs(), ", "))
	}
	if _, err := fakeservers.ParseEra(string(o.Era)); err != nil {
		return nil, fmt.Errorf("fakeserver --case %s: %w", o.Case, err)
	}
	if o.StrictInit && o.Era.ServesModern() {
		return nil, fmt.Errorf("fakeserver --case %s: --strict-init is for the legacy era, and --era is %s; drop one", o.Case, o.Era)
	}
	b, err := c.build(o)
	if err != nil {
		return nil, fmt.Errorf("fakeserver --case %s: %w", o.Case, err)
	}
	return b, nil
}

// server is one running fake: the base loop plus the case's behaviour.
type server struct {
	ctx     context.Context
	o       Options
	b       *behaviour
	rec     *Recorder
	stdout  *stream
	stderr  *stream
	exit    chan int       // the status the case chose to end with
	banner  atomic.Int64   // text lines written so far; numbers the next one
	calls   int            // tools/call requests received; the reader's alone
	inited  bool           // initialize was received; the reader's alone
	calling sync.WaitGroup // tools/call handlers still running
	// cancelled is closed when the first notifications/cancelled has been
	// recorded, so a case can wait for the client's cancel (cancelOnce).
	cancelled  chan struct{}
	cancelOnce sync.Once
}

func serve(ctx context.Context, o Options, b *behaviour, stdin io.Reader, stdout, stderr io.Writer, rec *Recorder) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{
		ctx:       ctx,
		o:         o,
		b:         b,
		rec:       rec,
		stdout:    &stream{name: "stdout", w: stdout, rec: rec, sendings: true},
		stderr:    &stream{name: "stderr", w: stderr, rec: rec},
		exit:      make(chan int, 1),
		cancelled: make(chan struct{}),
	}
	return s.run(stdin)
}

// run is the base loop: the case's start hook, then stdin until EOF, the
// case's own exit, or the end of ctx.
func (s *server) run(stdin io.Reader) int {
	if s.b.start != nil {
		s.b.start(s)
		select {
		case code := <-s.exit:
			return code
		default:
		}
	}
	eof := make(chan struct{})
	go s.read(stdin, eof)
	var drained chan struct{}
	for {
		select {
		case <-s.ctx.Done():
			return 0
		case code := <-s.exit:
			return code
		case <-eof:
			eof = nil
			if s.b.ignoreEOF {
				s.rec.Note("ignoring stdin EOF")
				continue
			}
			drained = make(chan struct{})
			go func() {
				s.calling.Wait()
				close(drained)
			}()
		case <-drained:
			s.rec.Exit("stdin closed")
			return 0
		}
	}
}

// exitWith ends the fake with code, recording why. The first call wins.
func (s *server) exitWith(code int, why string) {
	s.rec.Exit(why)
	select {
	case s.exit <- code:
	default:
	}
}

// read records and handles every stdin line, then records EOF and closes eof.
func (s *server) read(stdin io.Reader, eof chan<- struct{}) {
	defer close(eof)
	r := bufio.NewReaderSize(stdin, 64<<10)
	for s.ctx.Err() == nil {
		line, err := readLine(r)
		if len(line) > 0 || err == nil {
			s.handleLine(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.rec.Note("read stdin: " + err.Error())
			}
			s.rec.Record(Event{Type: EventStdinEOF})
			return
		}
	}
}

// readLine returns the next line without its newline. A line longer than
// maxLineBytes is cut there (the rest is read and dropped). At EOF it returns
// the unterminated tail, if any, with io.EOF.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if room := maxLineBytes - len(line); len(chunk) > room {
			chunk = chunk[:room]
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte{'\n'}), err
	}
}

// handleLine records a received line and dispatches it. Requests are answered
// in order, except tools/call: each call runs in its own goroutine, so a case
// that delays, withholds or floods never stops the fake from reading (and
// recording) what comes next. On stdin EOF the fake waits for running calls
// (not for a delayed initialize or a gathering batch) before it exits, so
// every request read before EOF that the case answers is answered.
// A batch line (2025-03-26) is handled message by message.
func (s *server) handleLine(line []byte) {
	s.rec.Recv(string(line))
	msgs := fakeservers.DecodeFrame(line)
	if msgs == nil {
		s.rec.Note("ignored a line that is not a JSON-RPC message or batch")
		return
	}
	for _, m := range msgs {
		s.handle(m)
	}
}

// handle dispatches one message the client sent.
func (s *server) handle(m *jsonrpc.Message) {
	if s.b.received != nil {
		s.b.received(s, m)
	}
	if m.Kind() == jsonrpc.KindNotification && m.Method == "notifications/cancelled" {
		s.cancelOnce.Do(func() { close(s.cancelled) })
	}
	if m.Kind() != jsonrpc.KindRequest {
		return // notifications and responses are only recorded (and seen by the case's received hook)
	}
	if s.o.StrictInit && !s.inited && m.Method != fakeservers.MethodInitialize {
		s.respond(fakeservers.NotInitialized(m))
		return
	}
	s.inited = s.inited || m.Method == fakeservers.MethodInitialize
	a := s.o.Era.Admit(m)
	if m.Method != fakeservers.MethodToolsCall || a.Refusal != nil {
		s.request(m, a)
		return
	}
	c, err := fakeservers.ParseCall(m, s.calls)
	s.calls++
	if err != nil {
		s.respond(jsonrpc.NewError(m.ID, jsonrpc.CodeInvalidParams, err.Error()))
		return
	}
	c.Modern = a.Modern
	s.calling.Go(func() { s.call(c) })
}

// respond writes one response, through the case's hook if it has one.
func (s *server) respond(m *jsonrpc.Message) {
	if s.b.respond != nil {
		s.b.respond(s, m)
		return
	}
	s.stdout.group(func(w *lineWriter) { w.message(m) })
}
