package run

import (
	"context"
	"github.com/mcpconform/mcpconform/harness/check"
	"slices"
	"sync"
	"time"
)

// The tool census: which tools of the server at the run's URL answer no
// call within the tool budget, learnt once for the whole run. Without it
// every check that calls each tool (CallsEveryTool) waits out the budget
// on the same slow tool, one after another; with it they call a tool the
// census found slow as they call the fixtures' slow tool (cancelled as
// soon as its call opened) or leave it out, and are judged in
// milliseconds. One classification for the run keeps them consistent:
// every check treats a tool alike, whichever ran first.

// Census is what the census learnt.
type Census struct {
	// Taken: the census ran to its end; otherwise the checks wait for
	// each tool themselves, as without it.
	Taken bool `json:"taken"`
	// Slow are the tools whose call's reply did not end within the tool
	// budget.
	Slow []string `json:"slow,omitempty"`
	// Answered are the tools whose call's reply ended within the budget
	// (answered, refused, or a stream ended to be resumed), so far while
	// the census is being taken (TakenCensus).
	Answered []string `json:"answered,omitempty"`
	// Why the census was not taken, when it was not.
	Why string `json:"why,omitempty"`
}

// CensusTaker calls every tool the run's policy lets checks call, each
// once, at once, on a session of its own, tells answered of each call
// answered as it comes, and returns those unanswered within cfg.ToolBudget
// (cancelled then). The server suite installs it.
type CensusTaker func(ctx context.Context, cfg Options, answered func(tool string)) Census

// RemoteCensus is a Claimer that knows the census its coordinator takes:
// a worker of a parallel run asks it rather than taking its own, for the
// census taken (wait) or as far as it went.
type RemoteCensus interface {
	Census(wait bool) (Census, error)
}

var (
	censusMu    sync.Mutex
	censusTaker CensusTaker
	census      *censusRun
)

type censusRun struct {
	done     chan struct{}
	c        Census
	answered []string // guarded by censusMu
}

// SetCensusTaker installs the taker; call it from a suite's init.
func SetCensusTaker(t CensusTaker) {
	censusMu.Lock()
	defer censusMu.Unlock()
	censusTaker = t
}

// StartCensus begins the run's tool census in the background, once, when
// the run certifies a server at a URL the user gave (Options.Census):
// what the coordinator of a parallel run and a run in one process do once
// the pre-flight passed. The checks that need it ask TakenCensus.
func StartCensus() {
	cfg := Current()
	censusMu.Lock()
	defer censusMu.Unlock()
	if census != nil {
		return
	}
	r := &censusRun{done: make(chan struct{})}
	census = r
	taker := censusTaker
	if !cfg.Census || taker == nil {
		r.c = Census{Why: "the run certifies no server at a URL of the user's"}
		close(r.done)
		return
	}
	go func() {
		defer close(r.done)
		ctx, cancel := context.WithTimeout(context.Background(), censusDeadline(cfg))
		defer cancel()
		r.c = taker(ctx, cfg, func(tool string) {
			censusMu.Lock()
			r.answered = append(r.answered, tool)
			censusMu.Unlock()
		})
	}()
}

// censusDeadline bounds the whole census: its handshake and listing at
// the start-up patience, its calls at the tool budget.
func censusDeadline(cfg Options) time.Duration { return cfg.Patience + cfg.ToolBudget }

// TakenCensus returns the run's census, waiting for it when wait says so
// (at most its deadline, then as not taken), else as far as it went (not
// Taken, the tools Answered so far): asked of the coordinator in a worker
// of a parallel run.
func TakenCensus(wait bool) Census {
	claimMu.Lock()
	c := claimer
	claimMu.Unlock()
	if r, ok := c.(RemoteCensus); ok {
		got, err := r.Census(wait)
		if err != nil {
			return Census{Why: "the coordinator did not tell its census: " + err.Error()}
		}
		return got
	}
	StartCensus()
	censusMu.Lock()
	r := census
	censusMu.Unlock()
	if !wait {
		select {
		case <-r.done:
			return r.c
		default:
			censusMu.Lock()
			defer censusMu.Unlock()
			return Census{Answered: slices.Clone(r.answered)}
		}
	}
	select {
	case <-r.done:
		return r.c
	case <-time.After(censusDeadline(Current()) + ShutdownGrace):
		return Census{Why: "the census took longer than its deadline"}
	}
}

// resetCensus forgets the census, for a new run in this process.
func resetCensus() {
	censusMu.Lock()
	defer censusMu.Unlock()
	census = nil
}

// CensusSlow reports whether the run's census found the tool name slow
// over transport t, waiting for the census: only a check that takes the
// census (TakesCensus), over HTTP at the user's URL, learns it.
func (c *C) CensusSlow(t check.Transport, name string) bool {
	if !c.takesCensus(t) {
		return false
	}
	return slices.Contains(c.census().Slow, name)
}

// CensusSoFar says what the run's census has learnt of tool name over
// transport t so far, without waiting: slow once it found the tool's call
// unanswered within the budget, pending while it has not seen the call
// answered yet. A check calls the tools it saw answered first, and asks
// CensusSlow of the pending ones once it did, so that its own waits run
// while the census is taken.
func (c *C) CensusSoFar(t check.Transport, name string) (slow, pending bool) {
	if !c.takesCensus(t) {
		return false, false
	}
	if c.taken == nil && c.sofar == nil {
		got := TakenCensus(false)
		if got.Taken || got.Why != "" {
			c.taken = &got
		} else {
			c.sofar = &got
		}
	}
	if c.taken != nil {
		return slices.Contains(c.taken.Slow, name), false
	}
	return false, !slices.Contains(c.sofar.Answered, name)
}

// takesCensus reports whether the check learns of the tools over t from
// the run's census.
func (c *C) takesCensus(t check.Transport) bool {
	return c.cfg.Census && c.D.TakesCensus && t == check.HTTP
}

// census returns the run's census, asked once per check.
func (c *C) census() Census {
	if c.taken == nil {
		got := TakenCensus(true)
		c.taken = &got
		if !got.Taken && got.Why != "" {
			c.Note("the run's tool census was not taken (%s): each tool call waits for its own answer", got.Why)
		}
	}
	return *c.taken
}
