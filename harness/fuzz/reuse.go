package fuzz

import (
	"fmt"
	"time"
)

// One stdio process serves many sequences: a worker keeps the process of a
// sequence that broke nothing (its slot) and runs the next sequence on it,
// its own initialize opening the session anew, up to Options.Reuse
// sequences; then, and after any break, a fresh process. Ids never repeat
// on one process (each sequence numbers its requests from its own base),
// and the answers an earlier sequence may still get are carried over, so
// that a late answer is judged as the answer it is. A break on a process
// that served earlier sequences counts only when a fresh process running
// the sequence alone breaks it the same way; else it is the state the
// earlier sequences left, reported as unconfirmed. A process is not reused
// while max-rss is judged (its memory must be the sequence's own) nor over
// HTTP (a session there costs no process).

// DefaultReuse is how many sequences one stdio process serves.
const DefaultReuse = 32

// idsPerSequence spaces the request ids of successive sequences: a
// sequence sends fewer requests than this.
const idsPerSequence = 4096

func (c Options) reuse() int {
	if c.Reuse <= 0 {
		return DefaultReuse
	}
	return c.Reuse
}

// reusable reports whether a process may serve more than one sequence.
func (f *fuzzer) reusable() bool {
	judgesRSS := f.cfg.MaxRSS > 0 && !f.cfg.SpecOnly
	return f.md.transport == "stdio" && !judgesRSS && f.cfg.reuse() > 1
}

// slot is a worker's process kept between sequences, with what its
// session carries: the negotiated version, the probe count, the answers
// still allowed.
type slot struct {
	c          conn
	served     int
	version    string
	probes     int
	late       map[string]*account
	unreadable int
	forbidden  map[string]bool
}

// keep takes r's process into the slot for the next sequence; false when
// it has served enough sequences or has ended.
func (sl *slot) keep(r *run, most int) bool {
	if sl.served+1 >= most || r.c.exited() != "" {
		return false
	}
	sl.c, sl.served = r.c, sl.served+1
	sl.version, sl.probes, sl.unreadable, sl.forbidden = r.version, r.probes, r.unreadableIDs, r.forbidden
	sl.late = map[string]*account{}
	for k, a := range r.acct {
		if a.got < a.max {
			sl.late[k] = &account{max: a.max - a.got, what: a.what + ", of an earlier sequence"}
		}
	}
	return true
}

// resume starts a run on the slot's process; the slot gives it up.
func (sl *slot) resume(transport string, opt ExecOptions) *run {
	r := newRun(sl.c, transport, opt)
	r.version, r.probes, r.unreadableIDs, r.forbidden = sl.version, sl.probes, sl.unreadable, sl.forbidden
	for k, a := range sl.late {
		r.acct[k] = a
	}
	sl.c = nil
	return r
}

// drop ends the slot's process.
func (sl *slot) drop(grace time.Duration) {
	if sl.c != nil {
		sl.c.close(grace)
		sl.c = nil
	}
}

// alone reports whether the break of u's run, on a process that served
// earlier sequences, shows again on a fresh process that runs the
// sequence's frames alone; when not, u is stale and the break is filed as
// unconfirmed.
func (h *hunt) alone(u *sut) bool {
	v := u.r.out.Violation
	frames := append([]Frame(nil), u.r.frames[:min(v.Step+1, len(u.r.frames))]...)
	out, err := Execute(h.f.cfg.Target, frames, h.execOptions())
	h.f.executions.Add(int64(out.Sent))
	if err == nil && out.shows(v) {
		return true
	}
	u.stale = true
	w := *v
	w.Detail = fmt.Sprintf("broke on a process that had served %d sequences before (%s), and not on a fresh one running this sequence's %d frames alone: the state the earlier sequences left, no finding of this one", h.served, v.Detail, len(frames))
	w.Frames = frames
	h.f.mu.Lock()
	h.f.unconfirmed = append(h.f.unconfirmed, &w)
	h.f.mu.Unlock()
	return false
}
