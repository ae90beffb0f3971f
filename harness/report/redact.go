package report

import (
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/harness/transcript"
)

// Redact masks the secrets in every text of the index that a target or a
// check can put a credential in: the target's values (a URL, an argv, the
// era probes' evidence), the checks' messages and transcripts. The JSON,
// Markdown and HTML reports and the console summary are rendered from the
// index, so one call masks them all; the HTML and Markdown escaping comes
// after, so a secret is masked as it was written.
func (ix *Index) Redact(s transcript.Secrets) {
	ix.Target = redactValue(ix.Target, s).(map[string]any)
	ix.Stopped = s.Redact(ix.Stopped)
	for i := range ix.Checks {
		c := &ix.Checks[i]
		c.Title, c.Requirement, c.Message = s.Redact(c.Title), s.Redact(c.Requirement), s.Redact(c.Message)
		c.Transcript = redactAll(c.Transcript, s)
	}
	if t := ix.Tools; t != nil {
		t.Called = redactAll(t.Called, s)
		for i := range t.LeftAlone {
			t.LeftAlone[i].Name = s.Redact(t.LeftAlone[i].Name)
		}
		for i := range t.FixturesFound {
			f := &t.FixturesFound[i]
			f.Tool, f.How = s.Redact(f.Tool), s.Redact(f.How)
		}
	}
}

// redactValue masks the strings of a target value: a string, a list or a
// map of them, as the CLI builds them; any other value holds no text.
func redactValue(v any, s transcript.Secrets) any {
	switch x := v.(type) {
	case string:
		return s.Redact(x)
	case []string:
		return redactAll(x, s)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e, s)
		}
		return out
	case map[string]string:
		out := make(map[string]string, len(x))
		for k, e := range x {
			out[k] = s.Redact(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = redactValue(e, s)
		}
		return out
	}
	return v
}

func redactAll(lines []string, s transcript.Secrets) []string {
	if lines == nil {
		return nil
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = s.Redact(l)
	}
	return out
}

// RedactReport returns a copy of a Ginkgo report with the secrets masked in
// what the JUnit reporter writes of a spec: its failure (message, panic,
// follow-on failure) and captured output. WriteJUnit writes what it is
// given, so pass it the copy.
func RedactReport(r types.Report, s transcript.Secrets) types.Report {
	specs := make(types.SpecReports, len(r.SpecReports))
	for i, spec := range r.SpecReports {
		spec.Failure = redactFailure(spec.Failure, s)
		spec.CapturedGinkgoWriterOutput = s.Redact(spec.CapturedGinkgoWriterOutput)
		spec.CapturedStdOutErr = s.Redact(spec.CapturedStdOutErr)
		specs[i] = spec
	}
	r.SpecReports = specs
	r.SpecialSuiteFailureReasons = redactAll(r.SpecialSuiteFailureReasons, s)
	return r
}

func redactFailure(f types.Failure, s transcript.Secrets) types.Failure {
	f.Message, f.ForwardedPanic = s.Redact(f.Message), s.Redact(f.ForwardedPanic)
	if f.AdditionalFailure != nil {
		more := *f.AdditionalFailure
		more.Failure = redactFailure(more.Failure, s)
		f.AdditionalFailure = &more
	}
	return f
}
