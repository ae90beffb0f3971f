package mcpclient

import (
	"net/url"
	"slices"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The branches of the mutants of harness/mutant/client_wire_rules2.go; the
// reference takes none.

// nextPage is the cursor ListTools sends for the page after one of size
// tools that offered next, and whether there is such a page: the
// reference follows next, exactly, until endOfList (PA-04, PA-05, PA-06),
// whatever the pages' sizes (first is the first page's) (PA-02).
func (s *Session) nextPage(next *string, first, tools int) (string, bool) {
	switch {
	case s.endOfList(next):
		return "", false
	case s.opts.Mutant == mutant.PagesIgnored,
		s.opts.Mutant == mutant.PageSizeAssumed && tools < first,
		s.opts.Mutant == mutant.EmptyCursorEnds && *next == "":
		return "", false
	case s.opts.Mutant == mutant.CursorAltered:
		return url.QueryEscape(*next), true
	}
	return *next, true
}

// speaks reports whether the client speaks protocol version v, the one the
// server chose in its initialize result (LC-10); mutant VersionUnchecked
// speaks any, mutant ProposesUnspoken not the one it proposes (LC-08).
func (s *Session) speaks(v string) bool {
	switch s.opts.Mutant {
	case mutant.VersionUnchecked:
		return true
	case mutant.ProposesUnspoken:
		return slices.Contains(s.opts.ProtocolVersions[1:], v)
	}
	return slices.Contains(s.opts.ProtocolVersions, v)
}
