package run

import (
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
)

// Claimer decides, when checks run in several worker processes, which
// worker runs each: every worker walks the same checks in the same order
// and asks before each one; the first to ask runs it, the others pass.
// Claim blocks while a serial check runs elsewhere (and, for a serial
// check, until nothing else runs); Done reports the check finished, with
// its outcome and the time it took.
type Claimer interface {
	Claim(id string, serial bool) (bool, error)
	Done(id string, outcome check.Outcome, took time.Duration)
}

// Progress is told of each check this process runs as it starts and as it
// ends: the console's live line and its lines of finished checks.
type Progress interface {
	Started(id string)
	Finished(id string, outcome check.Outcome, took time.Duration)
}

var (
	claimMu  sync.Mutex
	claimer  Claimer
	progress Progress
)

// SetClaimer makes this process one worker of a parallel run; nil makes
// it run every check it selects itself.
func SetClaimer(c Claimer) {
	claimMu.Lock()
	claimer = c
	claimMu.Unlock()
}

// SetProgress makes p told of every check this process runs; nil tells
// no one.
func SetProgress(p Progress) {
	claimMu.Lock()
	progress = p
	claimMu.Unlock()
}

// NotMine is the skip message of a check another worker ran.
const NotMine = "run by another worker"

// claim asks the claimer, if any, whether this worker runs the check; it
// returns the function to call once the check finished, which tells the
// claimer and the progress its outcome.
func claim(id string, serial bool) (mine bool, done func(check.Outcome, time.Duration), err error) {
	claimMu.Lock()
	c, p := claimer, progress
	claimMu.Unlock()
	if c != nil {
		ok, err := c.Claim(id, serial)
		if err != nil || !ok {
			return false, nil, err
		}
	}
	if p != nil {
		p.Started(id)
	}
	return true, func(o check.Outcome, took time.Duration) {
		if c != nil {
			c.Done(id, o, took)
		}
		if p != nil {
			p.Finished(id, o, took)
		}
	}, nil
}
