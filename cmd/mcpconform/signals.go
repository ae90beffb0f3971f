package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/mcpconform/mcpconform/suites/run"
)

var (
	sigMu  sync.Mutex
	caught os.Signal // the signal that interrupted the run, nil if none
)

// onSignal interrupts the run on SIGINT or SIGTERM: every process in
// flight is killed with its tree, the checks not reached are SKIPPED, and
// the reports are written marked interrupted. It returns the function
// that stops listening.
func onSignal(stderr io.Writer) (stop func()) {
	sigMu.Lock()
	caught = nil
	sigMu.Unlock()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			sigMu.Lock()
			caught = s
			sigMu.Unlock()
			fmt.Fprintf(stderr, "\nmcpconform: %v: stopping the checks in flight (within %s), then writing the reports of what finished\n", s, run.ShutdownGrace)
			run.Interrupt()
		case <-done:
		}
	}()
	return func() { signal.Stop(sigs); close(done) }
}

// interruptedExit is the exit status of a run a signal ended: 128 plus
// the signal's number (130 for SIGINT, 143 for SIGTERM), 0 otherwise.
func interruptedExit() int {
	sigMu.Lock()
	defer sigMu.Unlock()
	if s, ok := caught.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 0
}
