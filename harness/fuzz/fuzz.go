package fuzz

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"

	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// Options configure one fuzzing run. The zero value of every field means
// its default, which the field says.
type Options struct {
	Target Target
	// Seed makes the run reproducible: iteration i draws from Seed and i.
	Seed int64
	// Duration and Iterations bound the search; whichever ends first.
	// Zero Iterations is no bound by count; zero Duration none by time.
	Duration   time.Duration
	Iterations int
	// Workers run iterations side by side, each on its own connection;
	// zero is one.
	Workers int
	ExecOptions
	// Policy says which tools may be called (its zero value: read-only
	// tools only); Only, when set, narrows them to its list; Slow tools
	// are called only with their cancel.
	Policy     toolpolicy.Policy
	Only, Slow []string
	// MaxFindings ends the run once that many new groups of findings are
	// found (a group known by Known does not count); zero is no bound.
	MaxFindings int
	// StopOn, when set, also ends the run once a finding breaks that
	// invariant: the self-test hunts one planted bug, and a finding of
	// another kind on the way does not end its search.
	StopOn Invariant
	// Known maps the signatures of known findings to why they are
	// expected: such a group is reported with its reason, and neither
	// ends the run nor counts as new.
	Known map[string]string
	// Reuse is how many sequences one stdio process serves (see
	// reuse.go); zero is DefaultReuse, 1 a fresh process for each.
	Reuse int
	// MaxSteps bounds a sequence's length; zero is DefaultMaxSteps.
	MaxSteps int
	// ShrinkBudget bounds the time spent shrinking a finding with gopter;
	// zero is DefaultShrinkBudget. The last pass, which drops single
	// frames, gets what is left of it and at least a quarter of it.
	ShrinkBudget time.Duration
	// Progress, when set, is called about every ProgressEvery with the
	// figures so far.
	Progress      func(Stats)
	ProgressEvery time.Duration
}

// Defaults of an Options.
const (
	DefaultMaxSteps     = 200
	DefaultShrinkBudget = 40 * time.Second
)

func (c Options) shrinkBudget() time.Duration {
	if c.ShrinkBudget <= 0 {
		return DefaultShrinkBudget
	}
	return c.ShrinkBudget
}

// Stats are a run's figures so far.
type Stats struct {
	Iterations int64 // sequences run
	Executions int64 // frames and probes sent
	Findings   int64 // groups of findings
	Elapsed    time.Duration
	Remaining  time.Duration // -1 when the run is bounded by count only
}

// PerSecond is executions per second.
func (s Stats) PerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Executions) / s.Elapsed.Seconds()
}

// Finding is a group of findings: an invariant broken, shrunk to a
// minimal case, with the signature of that case and how many sequences
// showed it. The case, violation and iteration are the group's first.
type Finding struct {
	// Signature names the group (see Signature); Shape is the case's
	// shape it hashes.
	Signature, Shape string
	// Count is how many sequences broke the invariant with this shape.
	Count int
	// Known is the reason an expected-failures file gives for the
	// signature; "" for a new finding.
	Known     string
	Case      *Case
	Violation *Violation
	// Iteration is the sequence that first broke it; Original its length
	// in frames; Shrinks the shrinking runs tried.
	Iteration int64
	Original  int
	Shrinks   int
	// Steps name the minimal case's steps.
	Steps []string
}

// Report is the outcome of Run.
type Report struct {
	Seed     int64
	Stats    Stats
	Tools    []string // the tools called
	Skipped  []string // tools left out, each with why: "NAME (WHY)"
	Findings []Finding
	Warnings []*Violation
	// Unconfirmed are breaks seen once that no run of their shrunk case
	// repeated (a stall under load): reported apart, never findings.
	Unconfirmed []*Violation
	// Interrupted says ctx ended the run before its bound.
	Interrupted bool
}

// Run fuzzes the target until its bound (Duration, Iterations), MaxFindings
// new groups of findings, or ctx ends. A finding does not end the run: its
// sequence is shrunk and grouped by its signature, and the search goes on.
func Run(ctx context.Context, cfg Options) (*Report, error) {
	lists, skipped, err := discover(cfg)
	if err != nil {
		return nil, err
	}
	rep := &Report{Seed: cfg.Seed, Skipped: skipped}
	for _, t := range lists.tools {
		rep.Tools = append(rep.Tools, t.Name)
	}
	md := &model{tools: lists.tools, uris: lists.uris, prompts: lists.prompts, transport: cfg.Target.Transport()}
	cfg.Outputs = outputsOf(lists.tools, cfg.Outputs)
	if len(cfg.SlowTools) == 0 {
		cfg.SlowTools = cfg.Slow
	}
	cfg.quiet = lists.quiet
	workers := max(cfg.Workers, 1)
	start := time.Now()
	var deadline time.Time
	if cfg.Duration > 0 {
		deadline = start.Add(cfg.Duration)
	}
	f := &fuzzer{cfg: cfg, md: md, start: start, deadline: deadline, ctx: ctx}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); f.work() }()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	every := cfg.ProgressEvery
	if every <= 0 {
		every = time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-tick.C:
			if cfg.Progress != nil {
				cfg.Progress(f.stats())
			}
		}
	}
	rep.Stats = f.stats()
	rep.Findings = f.findings
	sort.Slice(rep.Findings, func(i, j int) bool { return rep.Findings[i].Iteration < rep.Findings[j].Iteration })
	rep.Warnings = f.warnings
	rep.Unconfirmed = f.unconfirmed
	rep.Interrupted = ctx.Err() != nil
	if ctx.Err() == nil {
		for i := range rep.Findings {
			record(cfg, rep.Findings[i].Case.Frames, rep.Findings[i].Violation)
		}
		for _, w := range rep.Warnings {
			record(cfg, w.Frames, w)
		}
	}
	if f.err != nil {
		return rep, fmt.Errorf("the fuzzer failed (a defect of mcpconform; please report it with the seed): %w", f.err)
	}
	return rep, nil
}

// record runs frames once more with the wire recorded, so that v carries
// the transcript of what the server did with them.
func record(cfg Options, frames []Frame, v *Violation) {
	log := &transcript.Log{}
	opt := cfg.ExecOptions
	opt.Log = log
	out, err := Execute(cfg.Target, frames, opt)
	switch {
	case err != nil:
		log.Notef("the recording run could not start: %v", err)
	case !out.shows(v):
		log.Notef("this recording run did not break %s again: the break depends on timing", v.Invariant)
	}
	v.Transcript = log.Entries()
}

// fuzzer is the state the workers share.
type fuzzer struct {
	cfg      Options
	md       *model
	ctx      context.Context
	start    time.Time
	deadline time.Time

	next, iterations, executions atomic.Int64
	newGroups                    atomic.Int64 // groups not in Known
	stopped                      atomic.Bool  // a finding broke Options.StopOn

	mu       sync.Mutex
	err      error // a harness error ends the run
	findings []Finding
	warnings []*Violation
	warned   map[Invariant]bool
	// unconfirmed are the breaks no run of their shrunk case repeated.
	unconfirmed []*Violation
}

func (f *fuzzer) stats() Stats {
	s := Stats{Iterations: f.iterations.Load(), Executions: f.executions.Load(), Elapsed: time.Since(f.start), Remaining: -1}
	f.mu.Lock()
	s.Findings = int64(len(f.findings))
	f.mu.Unlock()
	if !f.deadline.IsZero() {
		s.Remaining = max(time.Until(f.deadline), 0)
	}
	return s
}

// over reports whether the run should take no new iteration.
func (f *fuzzer) over() bool {
	f.mu.Lock()
	failed := f.err != nil
	f.mu.Unlock()
	enough := f.cfg.MaxFindings > 0 && f.newGroups.Load() >= int64(f.cfg.MaxFindings) || f.stopped.Load()
	return failed || enough || f.ctx.Err() != nil || (!f.deadline.IsZero() && time.Now().After(f.deadline))
}

func (f *fuzzer) work() {
	sl := &slot{}
	defer sl.drop(f.cfg.grace())
	for !f.over() {
		i := f.next.Add(1) - 1
		if f.cfg.Iterations > 0 && i >= int64(f.cfg.Iterations) {
			return
		}
		f.iterate(i, sl)
		f.iterations.Add(1)
	}
}

// iterate runs sequence i, on the process sl holds when it may, and, when
// it breaks an invariant, shrinks it.
func (f *fuzzer) iterate(i int64, sl *slot) {
	seed := f.cfg.Seed*1_000_003 + i
	rng := rand.New(rand.NewSource(seed))
	maxSteps := f.cfg.MaxSteps
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	length := 1 + rng.Intn(maxSteps)
	h := &hunt{f: f, slot: sl, idBase: i * idsPerSequence}
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = 1
	params.MinSize, params.MaxSize = length, length
	params.MaxShrinkCount = 2000
	result := commands.Prop(h.commands()).Check(params)
	if result.Status == gopter.TestError {
		f.harnessError(fmt.Errorf("sequence %d: %v", i, result.Error))
		return
	}
	// A break found at the teardown (NoLeftovers) comes after gopter's
	// property held, which then shrank nothing: the frame pass below
	// shrinks it alone. Any other break failed the property.
	if h.want == nil || h.attributed {
		return
	}
	// The frame pass gets what is left of the budget, and at least a
	// quarter of it.
	budget := f.cfg.shrinkBudget()
	if h.minimise(time.Now().Add(max(time.Until(h.shrinkStart.Add(budget)), budget/4))) {
		h.bestSteps = h.bestSteps[:0]
		for _, fr := range h.best {
			h.bestSteps = append(h.bestSteps, fr.String())
		}
	}
	if !h.confirm() {
		v := *h.bestViolation
		v.Detail = fmt.Sprintf("broke once (%s), then not in %d runs of its %d frames: the break depends on timing or the machine's load, and is no finding", v.Detail, confirmRuns, len(h.best))
		v.Frames = h.best
		f.mu.Lock()
		f.unconfirmed = append(f.unconfirmed, &v)
		f.mu.Unlock()
		return
	}
	c := &Case{Invariant: h.want.Invariant, Transport: f.md.transport, Seed: f.cfg.Seed, Frames: h.best}
	if !h.transportSpecific() {
		c.Transport = "any"
	}
	if h.want.Invariant == OutputSchema {
		c.Outputs = calledOutputs(h.best, f.cfg.Outputs)
	}
	c.Slow = calledSlow(h.best, f.cfg.SlowTools)
	sig := Signature(h.want.Invariant, h.best)
	c.Comment = []string{
		fmt.Sprintf("Found by mcpconform fuzz --seed %d (sequence %d of %d steps), shrunk to %d frames in %d runs.", f.cfg.Seed, i, h.original, len(h.best), h.shrinks),
		fmt.Sprintf("Breaks %s: %s.", h.want.Invariant, h.want.Invariant.Text()),
		"Signature: " + sig,
		"Seen: " + h.bestViolation.Detail,
		"Steps: " + cmp.Or(strings.Join(h.bestSteps, ", "), "none (the server's start, a probe ping and its end)"),
	}
	f.add(Finding{Signature: sig, Shape: Shape(h.best), Count: 1, Case: c, Violation: h.bestViolation, Iteration: i, Original: h.original, Shrinks: h.shrinks, Steps: h.bestSteps})
}

// confirmRuns is how many runs of a shrunk case may try to break its
// invariant again before it is reported.
const confirmRuns = 3

// confirm runs the shrunk case again, up to confirmRuns times, and reports
// whether one run broke the invariant the same way: a finding is one that
// shows again, not a stall of a loaded machine that no later run repeats
// (whose shrinking then drops nothing).
func (h *hunt) confirm() bool {
	for range confirmRuns {
		if h.f.ctx.Err() != nil {
			return true // an interrupted run keeps what it found
		}
		out, err := Execute(h.f.cfg.Target, h.best, h.f.cfg.ExecOptions)
		h.f.executions.Add(int64(out.Sent))
		if err == nil && h.hunted(out.Violation) {
			return true
		}
	}
	return false
}

// add files a shrunk finding under its signature: a new group, or one more
// sequence of a group already found (by another worker meanwhile).
func (f *fuzzer) add(fd Finding) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cfg.StopOn != "" && fd.Violation.Invariant == f.cfg.StopOn {
		f.stopped.Store(true)
	}
	for i := range f.findings {
		if g := &f.findings[i]; g.Signature == fd.Signature {
			g.Count++
			if fd.Iteration < g.Iteration {
				fd.Count, fd.Known = g.Count, g.Known
				*g = fd
			}
			return
		}
	}
	fd.Known = f.cfg.Known[fd.Signature]
	if fd.Known == "" {
		f.newGroups.Add(1)
	}
	f.findings = append(f.findings, fd)
}

// attribute counts a failing sequence to a group found before, without
// shrinking it again, when the sequence holds that group's minimal case
// (its frames' shapes in order, not necessarily adjacent) and broke the
// same invariant the same way; it reports whether it did.
func (f *fuzzer) attribute(v *Violation, frames []Frame) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	var shapes []string
	for i := range f.findings {
		g := &f.findings[i]
		if g.Violation.Invariant != v.Invariant || g.Violation.Kind != v.Kind {
			continue
		}
		if shapes == nil {
			shapes = make([]string, len(frames))
			for j, fr := range frames {
				shapes[j] = frameShape(fr)
			}
		}
		if holds(shapes, g.Case.Frames) {
			g.Count++
			return true
		}
	}
	return false
}

// holds reports whether the frames of a case appear, by shape and in
// order, among shapes.
func holds(shapes []string, frames []Frame) bool {
	j := 0
	for _, s := range shapes {
		if j < len(frames) && s == frameShape(frames[j]) {
			j++
		}
	}
	return j == len(frames)
}

// hunt is one iteration's property: it runs sequences and remembers the
// invariant the first failing one broke, so that shrinking keeps to it,
// and the smallest failing sequence.
type hunt struct {
	f *fuzzer
	// slot is the worker's process, which the sequence's first run may
	// use; idBase is where its request ids start.
	slot   *slot
	idBase int64
	served int // the sequences the slot's process served before this one
	want   *Violation
	// attributed says the first failing sequence was counted to a group
	// found before: there is nothing to shrink.
	attributed    bool
	best          []Frame
	bestSteps     []string
	bestViolation *Violation
	original      int
	shrinks       int
	shrinkStart   time.Time
}

// sut is one sequence's run: a connection opened lazily at its first step.
type sut struct {
	r     *run
	err   error
	steps []string
	// reused says r runs on a process that served earlier sequences;
	// stale that it broke an invariant there which a fresh process
	// running the sequence alone did not: the break is the earlier
	// sequences' state, and the sequence goes no further.
	reused, stale bool
}

func (h *hunt) commands() commands.Commands {
	mk := func(name string, frames []Frame, ids []string) *step {
		return &step{name: name, frames: frames, ids: ids, run: h.runStep, post: h.judge}
	}
	return &commands.ProtoCommands{
		NewSystemUnderTestFunc: func(commands.State) commands.SystemUnderTest {
			return &sut{}
		},
		DestroySystemUnderTestFunc: func(s commands.SystemUnderTest) { h.finish(s.(*sut)) },
		InitialStateGen:            h.f.md.initialState(h.idBase),
		GenCommandFunc: func(st commands.State) gopter.Gen {
			return h.f.md.stepGen(st.(*state), mk)
		},
	}
}

// aborted says runs should stop doing anything: the run is interrupted,
// or shrinking has spent its budget (what was found so far stands).
func (h *hunt) aborted() bool {
	if h.f.ctx.Err() != nil {
		return true
	}
	return h.attributed || h.want != nil && time.Since(h.shrinkStart) > h.f.cfg.shrinkBudget()
}

func (h *hunt) runStep(s commands.SystemUnderTest, st *step) commands.Result {
	u := s.(*sut)
	if u.err != nil || h.aborted() {
		return nil
	}
	if u.stale {
		return nil
	}
	if u.r == nil {
		if h.want == nil && h.slot.c != nil {
			h.served = h.slot.served
			u.r, u.reused = h.slot.resume(h.f.md.transport, h.execOptions()), true
		} else {
			c, err := h.f.cfg.Target.open(nil)
			if err != nil {
				u.err = err
				return &Violation{Invariant: Alive, Kind: "start", Detail: fmt.Sprintf("the server did not start: %v", err)}
			}
			u.r = newRun(c, h.f.md.transport, h.execOptions())
			if h.want == nil {
				h.slot.served = 0
			}
		}
	}
	r := u.r
	if r.out.Violation != nil {
		return r.out.Violation
	}
	u.steps = append(u.steps, st.name)
	sent := r.out.Sent
	if stepHook != nil {
		defer func(t0 time.Time) { stepHook(st.name, time.Since(t0)) }(time.Now())
	}
	for _, fr := range st.frames {
		if !fr.For(r.transport) {
			continue
		}
		r.frames = append(r.frames, fr)
	}
	for ; r.step < len(r.frames); r.step++ {
		if r.sendFrame(r.frames[r.step]) {
			break
		}
	}
	if r.open && r.out.Violation == nil {
		// A step ends its group of frames in flight, after its last frame
		// (the model's steps end with a frame that waits).
		r.step = len(r.frames) - 1
		r.endGroup(nil)
		r.step = len(r.frames)
	}
	h.f.executions.Add(int64(r.out.Sent - sent))
	if r.out.Violation != nil && u.reused && !h.alone(u) {
		return nil
	}
	return r.out.Violation
}

// judge fails a step whose run broke the invariant hunted (any MUST-level
// one until the first failure).
func (h *hunt) judge(result commands.Result) *gopter.PropResult {
	if v, _ := result.(*Violation); h.hunted(v) {
		return &gopter.PropResult{Status: gopter.PropFalse}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

// hunted reports whether v is the break this hunt is after: any until the
// first, then one of the same invariant and kind.
func (h *hunt) hunted(v *Violation) bool {
	return v != nil && (h.want == nil || Outcome{Violation: v}.shows(h.want))
}

// finish closes a sequence's connection and keeps what it showed.
func (h *hunt) finish(u *sut) {
	if u.r == nil {
		return
	}
	if !u.stale && u.r.out.Violation == nil && h.want == nil && h.f.reusable() && h.slot.keep(u.r, h.f.cfg.reuse()) {
		if len(u.r.out.Warnings) > 0 {
			h.f.warn(u.r.out.Warnings)
		}
		return
	}
	if u.reused {
		h.slot.c = nil // the run owns the process now, and ends it
	}
	u.r.closeConn()
	if u.stale {
		return
	}
	v := u.r.out.Violation
	if len(u.r.out.Warnings) > 0 {
		h.f.warn(u.r.out.Warnings)
	}
	if h.want != nil {
		h.shrinks++
	}
	if !h.hunted(v) {
		return
	}
	frames := u.r.frames[:min(v.Step+1, len(u.r.frames))]
	if h.want == nil {
		h.want, h.original, h.shrinkStart = v, len(frames), time.Now()
		if h.attributed = h.f.attribute(v, frames); h.attributed {
			return
		}
	}
	if h.best == nil || len(frames) <= len(h.best) {
		h.best, h.bestSteps, h.bestViolation = append([]Frame(nil), frames...), append([]string(nil), u.steps...), v
	}
}

// execOptions are the options of the hunt's runs. Once it shrinks a
// max-rss break, a candidate must cross the bound by an eighth of it: the
// smallest case that crosses it at all crosses it by a page, and a later
// run of it then may or may not, as the garbage collector's timing goes.
func (h *hunt) execOptions() ExecOptions {
	o := h.f.cfg.ExecOptions
	if h.want != nil && h.want.Invariant == MaxRSS {
		o.rssSlack = o.MaxRSS / 8
	}
	return o
}

// transportSpecific reports whether the best case holds frames for one
// transport only.
func (h *hunt) transportSpecific() bool {
	for _, f := range h.best {
		if f.Only != "" {
			return true
		}
	}
	return false
}

func (f *fuzzer) harnessError(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err == nil {
		f.err = err
	}
}

func (f *fuzzer) warn(ws []*Violation) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.warned == nil {
		f.warned = map[Invariant]bool{}
	}
	for _, w := range ws {
		if !f.warned[w.Invariant] {
			f.warned[w.Invariant] = true
			f.warnings = append(f.warnings, w)
		}
	}
}

// discover asks the server for its tools, resources and prompts (every
// page) over a fresh connection, and keeps the tools the configuration
// allows.
func discover(cfg Options) (lists serverLists, skipped []string, err error) {
	c, err := cfg.Target.open(nil)
	if err != nil {
		return lists, nil, err
	}
	defer c.close(cfg.grace())
	r := newRun(c, cfg.Target.Transport(), cfg.ExecOptions)
	if err := r.initialize(); err != nil {
		return lists, nil, err
	}
	only := set(cfg.Only)
	slow := set(cfg.Slow)
	id := int64(2)
	for _, raw := range r.listAll(&id, "tools/list", "tools") {
		var t struct {
			mcp.Tool
			InputSchema  map[string]any  `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		ok, why := cfg.Policy.Allows(t.Tool)
		switch {
		case !ok:
			skipped = append(skipped, t.Name+" ("+why+")")
		case len(only) > 0 && !only[t.Name]:
			skipped = append(skipped, t.Name+" (not in --tools)")
		default:
			lists.tools = append(lists.tools, Tool{Name: t.Name, Schema: t.InputSchema, Output: t.OutputSchema, Slow: slow[t.Name]})
		}
	}
	lists.quiet = r.quietSlowTools(&id, lists.tools)
	for _, raw := range r.listAll(&id, "resources/list", "resources") {
		var res struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(raw, &res) == nil && res.URI != "" && len(lists.uris) < maxListed {
			lists.uris = append(lists.uris, res.URI)
		}
	}
	for _, raw := range r.listAll(&id, "prompts/list", "prompts") {
		var p struct {
			Name      string `json:"name"`
			Arguments []struct {
				Name string `json:"name"`
			} `json:"arguments"`
		}
		if json.Unmarshal(raw, &p) != nil || p.Name == "" || len(lists.prompts) >= maxListed {
			continue
		}
		pr := prompt{name: p.Name}
		for _, a := range p.Arguments {
			pr.args = append(pr.args, a.Name)
		}
		lists.prompts = append(lists.prompts, pr)
	}
	return lists, skipped, nil
}

// maxListed bounds the resources and prompts the model draws from.
const maxListed = 64

// serverLists are what the server listed: the tools the run may call, the
// URIs of its resources, its prompts.
type serverLists struct {
	tools   []Tool
	uris    []string
	prompts []prompt
	quiet   map[string]bool // the slow tools that report no progress
}

// prompt is a prompt the server listed, with its arguments' names.
type prompt struct {
	name string
	args []string
}

// listAll pages through a list method and returns its items; a method
// the server refuses has none. id numbers the requests.
func (r *run) listAll(id *int64, method, key string) []json.RawMessage {
	var items []json.RawMessage
	var cursor any
	for range 1000 {
		var p any
		if cursor != nil {
			p = map[string]any{"cursor": cursor}
		}
		res, err := r.call(*id, method, p)
		*id++
		if err != nil || res.err != nil {
			break
		}
		var page map[string]json.RawMessage
		_ = json.Unmarshal(res.result, &page)
		var these []json.RawMessage
		_ = json.Unmarshal(page[key], &these)
		items = append(items, these...)
		cursor = nil
		_ = json.Unmarshal(page["nextCursor"], &cursor)
		if cursor == nil || cursor == "" {
			break
		}
	}
	return items
}

// call sends the request id, method, params on r's connection and waits
// for its answer.
func (r *run) call(id int64, method string, params any) (*jsonrpcResult, error) {
	raw := message(id, method, params)
	r.frames = append(r.frames, Frame{Body: raw})
	key := fmt.Sprint(id)
	r.acct[key] = &account{min: 1, max: 1, what: method}
	if _, err := r.c.send(Frame{Body: raw}); err != nil {
		return nil, fmt.Errorf("%s: %v%s", method, err, r.why())
	}
	return r.result(key, method)
}

// initialize opens the session as a client does (initialize with id 1,
// then notifications/initialized): over HTTP nothing else is served
// without the session it issues.
func (r *run) initialize() error {
	if _, err := r.call(1, "initialize", map[string]any{"protocolVersion": versions[0], "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "mcpconform-fuzz", "version": "1"}}); err != nil {
		return fmt.Errorf("the server did not answer initialize: %v; is it an MCP server? (mcpconform server pre-flights it with a clearer message)", err)
	}
	_, err := r.c.send(Frame{Body: message(nil, "notifications/initialized", nil)})
	return err
}

type jsonrpcResult struct {
	result json.RawMessage
	err    error
}

// StartupBudget is how long the discovery at a run's start waits for the
// server's first message beyond the answer timeout: the time a server
// takes to start (npx fetching a package, a loaded machine) is not an
// answer's, and a run that cannot start is the harness's error.
const StartupBudget = 60 * time.Second

// result waits for the answer to key. Until the server's first message
// the wait is also given StartupBudget, once.
func (r *run) result(key, method string) (*jsonrpcResult, error) {
	deadline := time.NewTimer(r.opt.timeout())
	defer deadline.Stop()
	waited := r.opt.timeout()
	for {
		select {
		case m, ok := <-r.c.messages():
			if !ok {
				return nil, fmt.Errorf("the server's output ended%s", r.why())
			}
			r.heard = true
			if m.Kind() == 0 || m.ID.Key() != key {
				continue
			}
			if m.Error != nil {
				return &jsonrpcResult{err: m.Error}, nil
			}
			return &jsonrpcResult{result: m.Result}, nil
		case <-deadline.C:
			if !r.heard && waited == r.opt.timeout() {
				deadline.Reset(StartupBudget)
				waited += StartupBudget
				continue
			}
			return nil, fmt.Errorf("no answer to %s within %s", method, waited)
		}
	}
}

func set(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// stepHook, when set, times each step (tests).
var stepHook func(name string, d time.Duration)
