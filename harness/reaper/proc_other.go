//go:build !linux

package reaper

import (
	"errors"
	"syscall"
	"time"
)

func subreaper() error { return errors.New("no child subreaper on this system") }

type proc struct {
	pid, ppid, pgrp int
	comm            string
	zombie          bool
}

// SeesProcesses reports whether Left, WaitGone and Reap can see processes
// at all: without /proc they find none.
const SeesProcesses = false

func scan() []proc { return nil }

// stat finds a process by signal 0: a zombie counts as alive here.
func stat(pid int) (proc, bool) {
	if syscall.Kill(pid, 0) != nil {
		return proc{}, false
	}
	return proc{pid: pid}, true
}

func (p proc) marked(string) bool { return false }

// waitExit cannot wait for an exit here: it waits a little, so that a
// caller's loop does not spin.
func waitExit(_ []int, d time.Duration) { time.Sleep(min(d, 10*time.Millisecond)) }
