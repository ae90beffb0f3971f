package run

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/check"
)

// A check of transport any judges each transport the run names apart:
// JudgeOn runs its body on one transport in a verdict scope of its own, so
// that a failure over stdio does not keep HTTP from being judged, and
// Conclude ends the check with the worst of the transports' verdicts,
// each of them in its message.

// Judgement is what a check's body ended with on one transport, or for a
// client check in one era (Era set: judgeIn).
type Judgement struct {
	Transport check.Transport
	Era       check.Era
	v         verdict
}

// where names what the judgement is of: "stdio", or "modern era".
func (j Judgement) where() string {
	if j.Era != "" {
		return string(j.Era) + " era"
	}
	return string(j.Transport)
}

// notJudged is the note of a judgement N/A: "not judged over stdio: …", or
// "not judged in the modern era: …".
func (j Judgement) notJudged() string {
	if j.Era != "" {
		return fmt.Sprintf("not judged in the %s era: %s", j.Era, j.v.message)
	}
	return fmt.Sprintf("not judged over %s: %s", j.Transport, j.v.message)
}

// JudgeOn runs f, the check's body on transport t, and returns what it
// ended with: PASS when it returned, else the verdict it ended the body
// with (FAIL, UNIMPLEMENTED, ERROR, …). The check's result lists t among
// the transports it was judged on, and where the transcript goes over from
// another transport to t a note says so. A panic that is no verdict
// passes through.
func (c *C) JudgeOn(t check.Transport, f func()) Judgement {
	if !slices.Contains(c.transports, t) {
		c.transports = append(c.transports, t)
	}
	if c.D.Role == check.Client {
		// Each adapter run sets the transcript (the fake's record): the
		// transports' runs follow one another.
		return Judgement{Transport: t, v: c.keepingTranscript(fmt.Sprintf("over %s from here", t), f)}
	}
	if c.over != "" && c.over != t {
		c.Log().Notef("over %s from here (over %s above)", t, c.over)
	}
	c.over = t
	return Judgement{Transport: t, v: c.scoped(f)}
}

// scoped runs f and returns the verdict it ended with: PASS when it
// returned. A panic that is no verdict passes through.
func (c *C) scoped(f func()) (v verdict) {
	v = verdict{outcome: check.Pass}
	defer func() {
		if r := recover(); r != nil {
			rv, ok := r.(verdict)
			if !ok {
				panic(r)
			}
			v = rv
		}
	}()
	f()
	return v
}

// NotJudged is the judgement of a transport the check does not apply to
// (the server serves the check's era on another one only): N/A, with why.
func NotJudged(t check.Transport, why string) Judgement {
	return Judgement{Transport: t, v: verdict{outcome: check.NotApplicable, message: why}}
}

// Conclude ends the check with the worst of js as the run grades them
// (FAIL, ERROR, WARN, HARDENED, UNIMPLEMENTED, INFO, PASS, N/A), the first
// of equals deciding, unless that is PASS: then it returns, so that the body
// goes on, and notes each transport not judged. With one judgement the
// check ends as its body did. With more, the message opens with each
// transport's outcome under the run's profile ("stdio: PASS; http:
// FAIL"), then the deciding verdict's message, then each other
// transport's, indented under its name.
func (c *C) Conclude(js []Judgement) {
	if len(js) == 0 {
		return
	}
	worst := 0
	for i, j := range js {
		if c.severity(j.v) > c.severity(js[worst].v) {
			worst = i
		}
	}
	v := js[worst].v
	if v.outcome == check.Pass {
		for _, j := range js {
			note := j.notJudged()
			if j.v.outcome == check.NotApplicable && !slices.Contains(c.notes, note) {
				c.notes = append(c.notes, note)
			}
		}
		return
	}
	if len(js) == 1 {
		panic(v)
	}
	summary := make([]string, len(js))
	for i, j := range js {
		summary[i] = fmt.Sprintf("%s: %s", j.where(), grade(c.D, j.v, c.cfg))
	}
	parts := []string{strings.Join(summary, "; ")}
	if v.message != "" {
		parts = append(parts, v.message)
	}
	for i, j := range js {
		if i != worst && j.v.message != "" {
			parts = append(parts, fmt.Sprintf("%s (%s):\n  %s", j.where(), grade(c.D, j.v, c.cfg), strings.ReplaceAll(j.v.message, "\n", "\n  ")))
		}
	}
	v.message = strings.Join(parts, "\n")
	panic(v)
}

// severity orders verdicts, as the run grades them, from the least to the
// most telling against the target: what does not apply, a pass, an
// observation without verdict, what could not be observed, a hardened
// rule missed, a SHOULD broken, what the harness could not judge (a server
// that did not start), and a MUST broken: a FAIL judged over one transport
// is the check's verdict even when the other could not be judged.
func (c *C) severity(v verdict) int {
	switch grade(c.D, v, c.cfg) {
	case check.Fail:
		return 7
	case check.Error:
		return 6
	case check.Warn:
		return 5
	case check.HardenedMiss:
		return 4
	case check.Unimplemented:
		return 3
	case check.Info:
		return 2
	case check.Pass:
		return 1
	}
	return 0
}
