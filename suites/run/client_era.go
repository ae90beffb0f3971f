package run

import (
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// A client is certified in each era it claims: the eras of its config line
// over the check's transport (target.Output.Eras; legacy when it declares
// none). A client check registered with For runs its body once per era of
// its descriptor (check.Descriptor.Eras), each in a verdict scope of its
// own, as a check of transport any judges each transport (JudgeOn): its
// adapter runs are told MCPCONFORM_ERA of that era and meet a fake serving
// it, and an era the client does not claim is N/A with what it must do.
// The check ends with the worst era's verdict (Conclude). ForEraChoice
// registers a check whose body names the eras of its runs itself (the
// client's own choice, MCPCONFORM_ERA unset; two eras meeting).

// eachEra wraps a client check's body: once per era of its descriptor.
func eachEra(body func(*C)) func(*C) {
	return func(c *C) {
		eras := c.D.EraList()
		if len(eras) == 1 {
			c.era = eras[0]
			body(c)
			return
		}
		js := make([]Judgement, 0, len(eras))
		for _, era := range eras {
			js = append(js, c.judgeIn(era, func() { body(c) }))
		}
		c.Conclude(js)
	}
}

// JudgedEra is the era a client check's body is judging (see For), empty
// for a body that names the eras of its runs itself (ForEraChoice).
func (c *C) JudgedEra() check.Era { return c.era }

// judgeIn runs f, the check's body in era, in a verdict scope of its own
// (scoped). Its transcript follows the eras judged before it.
func (c *C) judgeIn(era check.Era, f func()) Judgement {
	c.era = era
	return Judgement{Era: era, v: c.keepingTranscript(fmt.Sprintf("in the %s era from here", era), f)}
}

// keepingTranscript runs f in a verdict scope of its own (scoped), the
// transcript its adapter runs set following the one before, after note.
func (c *C) keepingTranscript(note string, f func()) verdict {
	before := c.entries
	c.entries = nil
	v := c.scoped(f)
	switch {
	case len(c.entries) == 0:
		c.entries = before
	case len(before) > 0:
		c.entries = append(append(before, transcript.Entry{Dir: transcript.Note, Line: note}), c.entries...)
	}
	return v
}

// ClaimsEra reports whether the client claims era over transport t (stdio
// or http), by the config line of its pre-flight run there.
func (c *C) ClaimsEra(t check.Transport, era check.Era) bool {
	return slices.Contains(c.probe(string(t)).run.Output.Eras(), string(era))
}

// UnclaimedByReference reports whether r is N/A because the reference
// client claims none of the eras of its check: what its suite tests accept
// of a check of an era the reference does not speak yet.
func UnclaimedByReference(r check.Result) bool {
	if r.Outcome != check.NotApplicable || r.Role != check.Client {
		return false
	}
	claimed := ReferenceConfigLine().Eras()
	return !slices.ContainsFunc(r.EraList(), func(e check.Era) bool { return slices.Contains(claimed, string(e)) })
}

// inEra gives the adapter run of a check judging an era that era: the
// client is told it (MCPCONFORM_ERA) and the fake serves it, unless the
// body named them. The check's era is N/A over transport when the client
// does not claim it there.
func (c *C) inEra(fake *fakeservers.Era, inv *target.Invocation, transport string) {
	if c.era == "" {
		return
	}
	if !c.ClaimsEra(check.Transport(transport), c.era) {
		c.NotApplicable(notClaimed(c.era, transport, c.probe(transport).run.Output.Eras()))
	}
	if *fake == "" {
		*fake = fakeservers.Era(c.era)
	}
	if inv.Era == "" {
		inv.Era = string(c.era)
	}
}

// notClaimed says that the client does not claim era over transport, and
// what it must do to be certified in it.
func notClaimed(era check.Era, transport string, claimed []string) string {
	todo := fmt.Sprintf(`when %s=%s, open with initialize`, target.EnvEra, target.EraLegacy)
	if era == check.Modern {
		todo = fmt.Sprintf(`when %s=%s, speak 2026-07-28 (server/discover, _meta with protocolVersion and clientCapabilities on every request)`, target.EnvEra, target.EraModern)
	}
	return fmt.Sprintf(`over %s the client claims the eras %q (its config line's %q; none declared is legacy alone), not the %s era; to be certified in it, list %q in %q and, %s`,
		transport, claimed, target.ConfigEras, era, era, target.ConfigEras, todo)
}
