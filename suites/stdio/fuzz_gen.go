package stdio

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"slices"
	"strings"

	"github.com/leanovate/gopter"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/suites/run"
)

// The stdio fuzz generator: one case is a seeded random script for one
// connection (banners, text between replies, damaged and non-object lines,
// stderr floods), and the outcome the rules give it for the client's
// declared budgets. The line generators are the property checks' own.

// stdioOutcome is what the rules expect of a script: whether the handshake
// completes, how many calls (t1…tOK) succeed before the session ends, and
// the rule that ends it ("" when none does).
type stdioOutcome struct {
	Handshake bool
	OK        int
	Rule      string
}

// expectStdio computes a script's outcome for a client with budgets l.
// Every stdout line counts in the order the fake writes it: a text line
// (NG-01) spends the budgets, and the first one past either ends the
// session (NG-03); a damaged or non-object line ends it at once (NG-02);
// stderr never does (NG-05). The call whose output ends the session fails,
// and every later one; a line after a reply ends the session for the next
// call.
func expectStdio(s stdiofake.Script, l run.Limits) stdioOutcome {
	var lines, bytes int64
	spent := func(size int64) bool {
		lines, bytes = lines+1, bytes+size
		return lines > l.StdoutTextLines || bytes > l.StdoutTextBytes
	}
	ends := func(out []string) string {
		for _, t := range out {
			switch jsonrpc.ClassifyLine([]byte(t)) {
			case jsonrpc.ClassText:
				if spent(int64(len(t)) + 1) {
					return "NG-03"
				}
			case jsonrpc.ClassDamaged, jsonrpc.ClassNonObject:
				return "NG-02"
			}
		}
		return ""
	}
	if s.LongBanner > 0 && spent(s.LongBanner) {
		return stdioOutcome{Rule: "NG-03"}
	}
	if r := ends(s.Banner); r != "" {
		return stdioOutcome{Rule: r}
	}
	for i, call := range s.Calls {
		if r := ends(call.Before); r != "" {
			return stdioOutcome{Handshake: true, OK: i, Rule: r}
		}
		if r := ends(call.After); r != "" {
			return stdioOutcome{Handshake: true, OK: i + 1, Rule: r}
		}
	}
	return stdioOutcome{Handshake: true, OK: len(s.Calls)}
}

// Focuses of the stdio fuzz cases. A case's seed picks its focus, so any
// run of as many consecutive seeds covers every one, and --seed S
// --fuzz-cases 1 replays case S whatever its place in the run.
const (
	focusMix         = "mix"               // text of every shape, floods, perhaps a fatal line
	focusBanner      = "banner"            // text before the initialize reply
	focusLinesExact  = "line-budget-exact" // exactly max_stdout_text_lines text lines
	focusLinesOver   = "line-budget-over"  // one line more
	focusBytesExact  = "byte-budget-exact" // text of exactly max_stdout_text_bytes bytes
	focusBytesOver   = "byte-budget-over"  // one byte more
	focusDamaged     = "damaged"           // a damaged line while a call is pending
	focusNonObject   = "non-object"        // JSON that is not an object while a call is pending
	focusStderrFlood = "stderr-flood"      // a stderr flood past any pipe buffer and stderr tail
	focusLongBanner  = "long-banner"       // one text line past the byte budget before the fake reads stdin
	// longBannerBytes is the long banner's size: more than a pipe holds,
	// and than the 16 MiB line the reference client reads whole, so a
	// client gives up on it mid-line while the fake, still writing it, has
	// read nothing of its stdin.
	longBannerBytes   = 20 << 20
	minFloodBytes     = 256 << 10
	maxFloodBytes     = 2 << 20
	maxMixFloodBytes  = 256 << 10
	shortTextMaxBytes = 40
)

var stdioFocuses = []string{focusMix, focusBanner, focusLinesExact, focusLinesOver, focusBytesExact, focusBytesOver, focusDamaged, focusNonObject, focusStderrFlood, focusLongBanner}

// stdioFuzzCase is one generated case.
type stdioFuzzCase struct {
	Seed   int64
	Focus  string
	Script stdiofake.Script
	Want   stdioOutcome
}

// Describe prints the case: seed, focus, script (long lines abridged) and
// the expected outcome.
func (fc stdioFuzzCase) Describe() string {
	s := fc.Script
	s.Banner = abridge(s.Banner)
	s.Calls = append([]stdiofake.ScriptCall(nil), s.Calls...)
	for i := range s.Calls {
		s.Calls[i].Before, s.Calls[i].After = abridge(s.Calls[i].Before), abridge(s.Calls[i].After)
	}
	b, _ := json.Marshal(s)
	want := fmt.Sprintf("calls t1…t%d succeed, the rest fail", fc.Want.OK)
	switch {
	case !fc.Want.Handshake:
		want = "the handshake fails, so no call succeeds"
	case fc.Want.Rule == "":
		want = "every call succeeds"
	}
	if fc.Want.Rule != "" {
		want += " (" + fc.Want.Rule + " ends the session)"
	}
	return fmt.Sprintf("fuzz case seed %d, focus %s\nscript: %s\nexpected: %s", fc.Seed, fc.Focus, b, want)
}

func abridge(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) > 80 {
			l = fmt.Sprintf("%s…(%d bytes)", l[:60], len(l))
		}
		out[i] = l
	}
	return out
}

// genStdioCase builds the case of one seed for budgets l.
func genStdioCase(seed int64, l run.Limits) stdioFuzzCase {
	g := newFuzzGen(seed)
	focus := stdioFocuses[run.FuzzPick(seed, len(stdioFocuses))]
	calls := 1 + g.r.Intn(3)
	s := stdiofake.Script{Calls: make([]stdiofake.ScriptCall, calls)}
	for i := range calls {
		s.Tools = append(s.Tools, fmt.Sprintf("t%d", i+1))
		s.Calls[i].Reply = true
	}
	if !g.focus(&s, focus, l) {
		focus = focusMix
		g.mix(&s, l)
	}
	return stdioFuzzCase{Seed: seed, Focus: focus, Script: s, Want: expectStdio(s, l)}
}

// fuzzGen draws a case's parts from one seeded source.
type fuzzGen struct {
	r *rand.Rand
	p *gopter.GenParameters
}

func newFuzzGen(seed int64) *fuzzGen {
	p := gopter.DefaultGenParameters()
	p.Rng = rand.New(rand.NewSource(seed))
	p.MaxSize = 24
	return &fuzzGen{r: p.Rng, p: p}
}

// sample draws one value of g that satisfies keep.
func (g *fuzzGen) sample(gn gopter.Gen, keep func(string) bool) string {
	for range 1000 {
		if v, ok := gn(g.p).Retrieve(); ok && keep(v.(string)) {
			return v.(string)
		}
	}
	panic("stdio fuzz: a generator found no value in 1000 draws")
}

func anyLine(string) bool { return true }

// shortText is a text line of at most shortTextMaxBytes bytes.
func (g *fuzzGen) shortText() string {
	return g.sample(textLine(), func(s string) bool { return len(s) <= shortTextMaxBytes })
}

// textOfSize is a text line of exactly n bytes, newline included (n ≥ 2):
// a letter-, digit- or timestamp-led start padded with x.
func (g *fuzzGen) textOfSize(n int) string {
	starts := []string{"log: ", "42 ", "2026-01-01 12:00:00 INFO ", "w"}
	for _, st := range starts[g.r.Intn(len(starts)):] {
		if len(st) <= n-1 {
			t := st + strings.Repeat("x", n-1-len(st))
			if jsonrpc.ClassifyLine([]byte(t)) == jsonrpc.ClassText {
				return t
			}
		}
	}
	return strings.Repeat("x", n-1)
}

// slot is a place for stdout text: the banner (call -1), or before or
// after a call's reply. The last call's After is no slot: the client may
// close before it reads what follows its last reply.
type slot struct {
	call  int
	after bool
}

func slots(s *stdiofake.Script) []slot {
	out := []slot{{call: -1}}
	for i := range s.Calls {
		out = append(out, slot{call: i})
		if i < len(s.Calls)-1 {
			out = append(out, slot{call: i, after: true})
		}
	}
	return out
}

// scatter puts the lines, in order, into random slots in order.
func (g *fuzzGen) scatter(s *stdiofake.Script, lines []string) {
	ss := slots(s)
	picks := make([]int, len(lines))
	for i := range picks {
		picks[i] = g.r.Intn(len(ss))
	}
	slices.Sort(picks)
	for i, line := range lines {
		put(s, ss[picks[i]], line)
	}
}

func put(s *stdiofake.Script, at slot, line string) {
	switch {
	case at.call < 0:
		s.Banner = append(s.Banner, line)
	case at.after:
		s.Calls[at.call].After = append(s.Calls[at.call].After, line)
	default:
		s.Calls[at.call].Before = append(s.Calls[at.call].Before, line)
	}
}

// fatal makes a random call end with the line instead of its reply.
func (g *fuzzGen) fatal(s *stdiofake.Script, line string) {
	i := g.r.Intn(len(s.Calls))
	s.Calls[i].Before = append(s.Calls[i].Before, line)
	s.Calls[i].Reply = false
}

// few returns up to 3 short text lines, within the budgets.
func (g *fuzzGen) few(l run.Limits) []string {
	n := g.r.Intn(int(min(l.StdoutTextLines, 3, l.StdoutTextBytes/(shortTextMaxBytes+1))) + 1)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = g.shortText()
	}
	return lines
}

// focus fills the script for a focus; false when the budgets leave no room
// for it (the case falls back to a mix).
func (g *fuzzGen) focus(s *stdiofake.Script, focus string, l run.Limits) bool {
	switch focus {
	case focusMix:
		g.mix(s, l)
	case focusBanner:
		if l.StdoutTextLines == 0 || l.StdoutTextBytes <= shortTextMaxBytes {
			return false
		}
		for range 1 + g.r.Intn(int(min(l.StdoutTextLines, 3, l.StdoutTextBytes/(shortTextMaxBytes+1)))) {
			s.Banner = append(s.Banner, g.shortText())
		}
	case focusLinesExact, focusLinesOver:
		n := l.StdoutTextLines
		if focus == focusLinesOver {
			n++
		}
		if n == 0 || n > 5000 || n*(shortTextMaxBytes+1) > l.StdoutTextBytes {
			return false
		}
		lines := make([]string, n)
		for i := range lines {
			lines[i] = g.shortText()
		}
		g.scatter(s, lines)
	case focusBytesExact, focusBytesOver:
		total := l.StdoutTextBytes
		if focus == focusBytesOver {
			total++
		}
		n := 1 + g.r.Int63n(min(l.StdoutTextLines, 8)+1)
		if l.StdoutTextLines == 0 || total < 2*n || total > 1<<20 {
			return false
		}
		lines := make([]string, 0, n)
		for i := range n {
			size := total / n
			if i == n-1 {
				size = total - size*(n-1)
			}
			lines = append(lines, g.textOfSize(int(size)))
		}
		g.scatter(s, lines)
	case focusDamaged:
		g.scatter(s, g.few(l))
		g.fatal(s, g.sample(fatalLine(), func(t string) bool {
			// brace-led and without "jsonrpc": damage only the brace reveals
			return strings.HasPrefix(t, "{") && !strings.Contains(t, "jsonrpc") && jsonrpc.ClassifyLine([]byte(t)) == jsonrpc.ClassDamaged
		}))
	case focusNonObject:
		g.scatter(s, g.few(l))
		g.fatal(s, g.sample(fatalLine(), func(t string) bool { return jsonrpc.ClassifyLine([]byte(t)) == jsonrpc.ClassNonObject }))
	case focusStderrFlood:
		g.scatter(s, g.few(l))
		s.Calls[g.r.Intn(len(s.Calls))].Stderr = minFloodBytes + g.r.Int63n(maxFloodBytes-minFloodBytes)
	case focusLongBanner:
		if l.StdoutTextBytes >= longBannerBytes {
			return false
		}
		s.LongBanner = longBannerBytes
	}
	return true
}

// mix is text of any shape and size (budgets or not), floods below the
// pipe sizes, and in a third of the cases one fatal line.
func (g *fuzzGen) mix(s *stdiofake.Script, l run.Limits) {
	lines := make([]string, g.r.Intn(int(min(l.StdoutTextLines, 6))+1))
	for i := range lines {
		lines[i] = g.sample(textLine(), anyLine)
	}
	g.scatter(s, lines)
	for i := range s.Calls {
		if g.r.Intn(3) == 0 {
			s.Calls[i].Stderr = 1 + g.r.Int63n(maxMixFloodBytes)
		}
	}
	if g.r.Intn(3) == 0 {
		g.fatal(s, g.sample(fatalLine(), anyLine))
	}
}
