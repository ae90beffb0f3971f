package run

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/harness/reaper"
)

// ShutdownGrace bounds how long an interrupted run takes to tear down
// what is in flight: every process of the run is killed at once, and a
// check body still running after this long is abandoned.
const ShutdownGrace = 5 * time.Second

// NotRunInterrupted is the message of a selected check the run did not
// reach because it was interrupted.
const NotRunInterrupted = "not run: the run was interrupted first"

// InterruptedWhileRunning is the message of a check that was in flight
// when the run was interrupted: it has no verdict.
const InterruptedWhileRunning = "interrupted while it ran: no verdict"

var (
	intMu       sync.Mutex
	runCtx      = context.Background()
	runCancel   = func() {}
	interrupted atomic.Bool
)

// resetRun gives a new run its context (Configure calls it).
func resetRun() {
	intMu.Lock()
	defer intMu.Unlock()
	runCtx, runCancel = context.WithCancel(context.Background())
	interrupted.Store(false)
	reaper.Restart()
}

// runContext is the context every check's Ctx derives from.
func runContext() context.Context {
	intMu.Lock()
	defer intMu.Unlock()
	return runCtx
}

// Interrupt ends the run (on SIGINT or SIGTERM): the context of every
// check in flight is cancelled and every process the run started, with
// its whole tree, is killed. Checks that end after it have no verdict.
func Interrupt() {
	interrupted.Store(true)
	intMu.Lock()
	cancel := runCancel
	intMu.Unlock()
	cancel()
	reaper.Stop(ShutdownGrace)
}

// Interrupted reports whether Interrupt was called in this run.
func Interrupted() bool { return interrupted.Load() }
