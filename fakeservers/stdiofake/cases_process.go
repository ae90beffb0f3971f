package stdiofake

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

func grandchild(o Options) (*behaviour, error) {
	if err := checkMarkerFile(o); err != nil {
		return nil, err
	}
	return &behaviour{start: func(s *server) { startGrandchild(s, o) }}, nil
}

// startGrandchild starts the grandchild-sleeper in the fake's own process
// group (so terminating the group reaches it, NG-08) with stdin, stdout and
// stderr on /dev/null (so it holds none of the client's pipes open). It
// shares the fake's record file and watchdog.
func startGrandchild(s *server, o Options) {
	sleeper := Options{Case: "grandchild-sleeper", File: o.File, Delay: o.Delay, Record: o.Record, Watchdog: o.Watchdog}
	argv := selfexec.Command("fakeserver", sleeper.Args()...)
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		s.rec.Note("start grandchild: " + err.Error())
		return
	}
	s.rec.Record(Event{Type: EventChild, PID: cmd.Process.Pid})
	go func() { _ = cmd.Wait() }() // reaps it should it end while the fake runs; the fake never waits for it
}

func grandchildSleeper(o Options) (*behaviour, error) {
	if err := checkMarkerFile(o); err != nil {
		return nil, err
	}
	return &behaviour{ignoreEOF: true, ignoreSigterm: true, start: func(s *server) {
		if !s.sleep(o.Delay) {
			return
		}
		if err := os.WriteFile(o.File, []byte("alive"), 0o644); err != nil {
			s.rec.Note("grandchild-sleeper: write marker file: " + err.Error())
		}
		s.exitWith(0, "grandchild-sleeper: slept "+o.Delay.String()+" and wrote "+o.File)
	}}, nil
}

func checkMarkerFile(o Options) error {
	if o.File == "" {
		return errors.New("--file is required: the marker file the grandchild writes after --delay if it survives")
	}
	if o.Delay < 0 {
		return fmt.Errorf("--delay must be 0 or more, got %s", o.Delay)
	}
	return nil
}

// sleep waits d; false when the fake is done first.
func (s *server) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.ctx.Done():
		return false
	}
}

func slowStart(o Options) (*behaviour, error) {
	if o.Delay < 0 {
		return nil, fmt.Errorf("--delay must be 0 or more, got %s", o.Delay)
	}
	return &behaviour{initDelay: o.Delay}, nil
}

// exitEarly is the call hook of early-exit.
func exitEarly(s *server, c fakeservers.ToolCall) {
	s.exitWith(3, fmt.Sprintf("early-exit: status 3 on tools/call %s", c.Req.ID))
}

// defaultCancelWait is how long cancel-then-echo holds echo for a cancel.
const defaultCancelWait = 2 * time.Second

// cancelThenEcho offers slow, which it answers only late, and echo, which
// it answers only once the client's notifications/cancelled (for slow,
// timed out) has been recorded, or --delay after echo's call. Once the
// cancel came, echo's call first gets slow's late answer (an error, on the
// one stdout, so it arrives while echo is pending), then its own: a client
// that ignores a response to a cancelled request (CN-06) still gets echo's.
// The client's close comes after echo's answer, so a cancel sent from a
// goroutine after the timed-out call returned is recorded before stdin
// closes: the record shows the cancel or its absence, never a race with
// the close.
func cancelThenEcho(o Options) (*behaviour, error) {
	if o.Delay < 0 {
		return nil, fmt.Errorf("--delay must be 0 (the default, %s) or more, got %s", defaultCancelWait, o.Delay)
	}
	wait := o.Delay
	if wait == 0 {
		wait = defaultCancelWait
	}
	var (
		mu   sync.Mutex
		slow []jsonrpc.ID // the slow calls not yet answered late
	)
	return &behaviour{tools: []string{"slow", "echo"}, call: func(s *server, c fakeservers.ToolCall) {
		if c.Name != "echo" {
			mu.Lock()
			slow = append(slow, c.Req.ID)
			mu.Unlock()
			leaveUnanswered(s, c)
			return
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-s.cancelled:
			mu.Lock()
			late := slow
			slow = nil
			mu.Unlock()
			for _, id := range late {
				s.rec.Note(fmt.Sprintf("answering the cancelled tools/call %s late", id))
				s.respond(fakeservers.LateAnswer(id))
			}
		case <-t.C:
			s.rec.Note(fmt.Sprintf("no notifications/cancelled within %s; answering echo", wait))
		case <-s.ctx.Done():
			return
		}
		s.respond(c.OK())
	}}, nil
}
