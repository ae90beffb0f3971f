package fuzz

import "time"

// minimise is the last pass of shrinking, on the frames themselves rather
// than on gopter's steps: it drops chunks of frames, halving the chunk
// down to one frame, and keeps every removal after which the case still
// breaks the invariant hunted in the same way; the one-frame pass repeats
// until nothing more can go. The result is one-minimal (no single frame
// can be dropped) unless the deadline ends it first. It reports whether a
// frame was dropped.
func (h *hunt) minimise(deadline time.Time) bool {
	frames := h.best
	dropped := false
	try := func(cand []Frame) bool {
		out, err := Execute(h.f.cfg.Target, cand, h.execOptions())
		h.f.executions.Add(int64(out.Sent))
		h.shrinks++
		if err != nil || !h.hunted(out.Violation) {
			return false
		}
		frames = cand[:min(out.Violation.Step+1, len(cand))]
		h.bestViolation = out.Violation
		dropped = true
		return true
	}
	over := func() bool { return h.f.ctx.Err() != nil || time.Now().After(deadline) }
	for chunk := len(frames) / 2; chunk >= 1 && !over(); chunk /= 2 {
		for again := true; again && !over(); {
			again = false
			// From the end: what follows the trigger goes first.
			for i := len(frames) - chunk; i >= 0 && !over(); i = min(i-chunk, len(frames)-chunk) {
				cand := append(append([]Frame(nil), frames[:i]...), frames[i+chunk:]...)
				if try(cand) {
					again = chunk == 1
				}
			}
		}
	}
	h.best = frames
	return dropped
}
