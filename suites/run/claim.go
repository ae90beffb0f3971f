package run

import (
	"sync"
)

// Claimer decides, when checks run in several worker processes, which
// worker runs each: every worker walks the same checks in the same order
// and asks before each one; the first to ask runs it, the others pass.
// Claim blocks while a serial check runs elsewhere (and, for a serial
// check, until nothing else runs); Done reports the check finished.
type Claimer interface {
	Claim(id string, serial bool) (bool, error)
	Done(id string)
}

var (
	claimMu sync.Mutex
	claimer Claimer
)

// SetClaimer makes this process one worker of a parallel run; nil makes
// it run every check it selects itself.
func SetClaimer(c Claimer) {
	claimMu.Lock()
	claimer = c
	claimMu.Unlock()
}

// NotMine is the skip message of a check another worker ran.
const NotMine = "run by another worker"

// claim asks the claimer, if any, whether this worker runs the check; it
// returns the function to call once the check finished.
func claim(id string, serial bool) (mine bool, done func(), err error) {
	claimMu.Lock()
	c := claimer
	claimMu.Unlock()
	if c == nil {
		return true, func() {}, nil
	}
	ok, err := c.Claim(id, serial)
	if err != nil || !ok {
		return false, func() {}, err
	}
	return true, func() { c.Done(id) }, nil
}
