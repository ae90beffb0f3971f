package run

import "github.com/mcpconform/mcpconform/harness/check"

// JudgeInEra runs f, a server check's body in one era over the transport
// being judged, in a verdict scope of its own (scoped), so that a failure
// in one era does not keep the other from being judged; Conclude ends the
// check with the worst of the eras' judgements, each named in its message.
func (c *C) JudgeInEra(era check.Era, f func()) Judgement {
	return Judgement{Era: era, v: c.scoped(f)}
}
