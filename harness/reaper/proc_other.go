//go:build !linux

package reaper

import (
	"errors"
	"time"
)

func subreaper() error { return errors.New("no child subreaper on this system") }

type proc struct {
	pid, ppid, pgrp int
	comm            string
	zombie          bool
}

func scan() []proc { return nil }

func (p proc) marked(string) bool { return false }

// waitExit cannot wait for an exit here: it waits a little, so that a
// caller's loop does not spin.
func waitExit(_ []int, d time.Duration) { time.Sleep(min(d, 10*time.Millisecond)) }
