// Package console is what a run shows while its checks run: on a
// terminal, one live line with the count per outcome, the checks running,
// the time elapsed and what is left; elsewhere (a file, a CI log) one plain
// line per finished check, without escape codes unless colour is asked for.
package console

import (
	"io"
	"slices"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
)

// DefaultRefresh is how often the live line is redrawn while no check
// starts or ends, so that the times on it move.
const DefaultRefresh = time.Second

// defaultWidth is the width of a terminal that does not tell its own.
const defaultWidth = 80

// Options configure a console; the zero value prints a plain line per
// finished check, without colour.
type Options struct {
	// Live draws the live line (on a terminal); otherwise each finished
	// check prints a plain line.
	Live bool
	// Colour paints the outcomes.
	Colour bool
	// Width gives the terminal's width in columns (nil, or 0 returned:
	// 80); read at every redraw, so a resized terminal is followed.
	Width func() int
	// Total is how many checks the run selected; Budget the run's budget
	// (0: none shown).
	Total  int
	Budget time.Duration
	// Refresh is how often the live line is redrawn with nothing changing
	// (0: DefaultRefresh).
	Refresh time.Duration
	// Verbose prints, on a terminal, a line for every finished check above
	// the live line, not only for those that need attention.
	Verbose bool
}

// Console shows a run's progress on out. Its methods may be called from
// any goroutine.
type Console struct {
	out  io.Writer
	opts Options

	mu     sync.Mutex
	start  time.Time
	status status
	shown  bool // the live line is on the screen
	closed bool
	stop   chan struct{}
	wg     sync.WaitGroup
}

// New returns a console writing to out; on a live console the time
// elapsed counts from now. Close it when the checks have ended.
func New(out io.Writer, o Options) *Console {
	if o.Refresh <= 0 {
		o.Refresh = DefaultRefresh
	}
	c := &Console{out: out, opts: o, start: time.Now(), stop: make(chan struct{}),
		status: status{total: o.Total, budget: o.Budget, counts: map[check.Outcome]int{}}}
	if o.Live {
		c.wg.Go(c.refresh)
	}
	return c
}

func (c *Console) refresh() {
	t := time.NewTicker(c.opts.Refresh)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
			c.mu.Lock()
			c.draw("")
			c.mu.Unlock()
		}
	}
}

// Started tells the console that check id started.
func (c *Console) Started(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status.running = append(c.status.running, id)
	c.draw("")
}

// Finished tells the console that check id ended with outcome o after took.
func (c *Console) Finished(id string, o check.Outcome, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i := slices.Index(c.status.running, id); i >= 0 {
		c.status.running = slices.Delete(c.status.running, i, i+1)
	}
	c.status.finished++
	c.status.counts[o]++
	line := CheckLine(c.opts.Colour, o, id, took)
	switch {
	case !c.opts.Live:
		_, _ = io.WriteString(c.out, line+"\n")
	case c.opts.Verbose || needsAttention(o):
		c.draw(line)
	default:
		c.draw("")
	}
}

// needsAttention reports whether a check with the outcome keeps a line of
// its own on a terminal, above the live line.
func needsAttention(o check.Outcome) bool {
	switch o {
	case check.Fail, check.Error, check.Stale, check.Warn, check.HardenedMiss:
		return true
	}
	return false
}

// draw redraws the live line, printing above it first, when given, a line
// that stays; c.mu is held.
func (c *Console) draw(above string) {
	if !c.opts.Live || c.closed {
		return
	}
	width := defaultWidth
	if c.opts.Width != nil {
		if w := c.opts.Width(); w > 0 {
			width = w
		}
	}
	c.status.elapsed = time.Since(c.start)
	text := "\r" + eraseLine
	if above != "" {
		text += above + "\n"
	}
	text += c.status.line(width, c.opts.Colour)
	_, _ = io.WriteString(c.out, text)
	c.shown = true
}

// eraseLine erases the line the cursor is on.
const eraseLine = "\x1b[2K"

// Close stops the live line and erases it, so what follows starts on a
// clean line; the plain lines stay.
func (c *Console) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	if c.shown {
		_, _ = io.WriteString(c.out, "\r"+eraseLine)
	}
	c.mu.Unlock()
	close(c.stop)
	c.wg.Wait()
}
