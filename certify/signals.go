package certify

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/suites/run"
)

var (
	sigMu sync.Mutex
	// caught is what interrupted the run: a signal, or the run budget
	// (runTimeoutCause); nil if nothing did.
	caught any
)

// runTimeoutCause names the run budget as what interrupted the run.
type runTimeoutCause time.Duration

func (b runTimeoutCause) String() string {
	return fmt.Sprintf("--run-timeout (%s)", time.Duration(b))
}

// onSignal interrupts the run on SIGINT or SIGTERM, or once budget has
// passed (0: never), calling also first when set: every process in flight is killed with its tree,
// the checks not reached are SKIPPED, and the reports are written marked
// interrupted. It returns the function that stops listening.
func onSignal(stderr io.Writer, budget time.Duration, also func(cause any)) (stop func()) {
	sigMu.Lock()
	caught = nil
	sigMu.Unlock()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var expired <-chan time.Time
	timer := time.NewTimer(budget)
	if budget > 0 {
		expired = timer.C
	}
	done := make(chan struct{})
	interrupt := func(cause any) {
		sigMu.Lock()
		caught = cause
		sigMu.Unlock()
		fmt.Fprintf(stderr, "\nmcpconform: %v: stopping the checks in flight (within %s), then writing the reports of what finished\n", cause, run.ShutdownGrace)
		if also != nil {
			also(cause)
		}
		run.Interrupt()
	}
	go func() {
		select {
		case s := <-sigs:
			interrupt(s)
		case <-expired:
			interrupt(runTimeoutCause(budget))
		case <-done:
		}
	}()
	return func() { signal.Stop(sigs); timer.Stop(); close(done) }
}

// interruptedBy names what interrupted the run, "" if nothing did.
func interruptedBy() string {
	sigMu.Lock()
	defer sigMu.Unlock()
	switch c := caught.(type) {
	case syscall.Signal:
		return unix(c)
	case runTimeoutCause:
		return "run-timeout"
	}
	return ""
}

// unix is the signal's conventional name.
func unix(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// interruptedExit is the exit status of an interrupted run: 128 plus the
// signal's number (130 for SIGINT, 143 for SIGTERM), 2 when the run
// budget ran out, 0 otherwise.
func interruptedExit() int {
	sigMu.Lock()
	defer sigMu.Unlock()
	switch c := caught.(type) {
	case syscall.Signal:
		return 128 + int(c)
	case runTimeoutCause:
		return 2
	}
	return 0
}
