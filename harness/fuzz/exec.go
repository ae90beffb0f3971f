package fuzz

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// ExecOptions configure the executor. The zero value of every field means
// its default, which the field says.
type ExecOptions struct {
	// Timeout is how long a request's answer, and the probe ping's, may
	// take; zero is DefaultTimeout.
	Timeout time.Duration
	// Grace is how long the teardown waits at each of its steps (stdin
	// closed, SIGTERM, SIGKILL) and then for the tree's last process to
	// go; zero is Timeout.
	Grace time.Duration
	// MaxRSS bounds the resident memory of a stdio server's process group;
	// zero is not measured.
	MaxRSS int64
	// Log, when set, records the wire of Execute (never stderr's bytes).
	Log *transcript.Log
	// SpecOnly judges the specification's invariants only (--profile
	// spec): the hardened ones (max-rss, no-leftovers) are not judged.
	SpecOnly bool
	// Outputs are the outputSchemas the server's tools declare, by name,
	// as its tools/list read at the start: a successful call of one of
	// them is judged against it (OutputSchema). A tools/list the run's
	// own frames get adds to them and overrides them.
	Outputs map[string]json.RawMessage
	// SlowTools are the tools the fixtures name slow: each answers only
	// when cancelled, or after long. A call of one that the server showed
	// running when its cancel went out is judged by NoResponseAfterCancel.
	SlowTools []string
	// quiet are the slow tools that showed no progress when the run's
	// discovery called one: a frame that waits for such a call to run
	// (WaitProgress) does not wait, and its cancel is not judged.
	quiet map[string]bool
	// rssSlack raises the memory bound while a max-rss finding is shrunk:
	// a case kept there crosses --max-rss with room to spare, so that its
	// runs afterwards (the confirmation, a replay) cross it too.
	rssSlack int64
}

// StartupGrace is how much longer than the answer timeout a sequence
// waits for a server that has sent nothing yet on its connection: a fresh
// process on a loaded machine takes that to start, and a wedge found
// there costs only that once.
const StartupGrace = 5 * time.Second

// DefaultTimeout is how long the executor waits for an answer.
const DefaultTimeout = 2 * time.Second

func (o ExecOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

func (o ExecOptions) grace() time.Duration {
	if o.Grace <= 0 {
		return o.timeout()
	}
	return o.Grace
}

// Outcome is what one execution of a frame sequence showed.
type Outcome struct {
	// Violation is the first MUST-level break; nil when every invariant held.
	Violation *Violation
	// Warnings are SHOULD-level breaks (at most one per invariant).
	Warnings []*Violation
	// Sent counts the frames and probes sent; Peak is the highest RSS seen.
	Sent int
	Peak int64
}

// shows reports whether the outcome broke what v broke: a MUST break of
// the same invariant and kind, or a warning of the same invariant (a
// SHOULD invariant's, or a hardened one's under --profile spec).
func (o Outcome) shows(v *Violation) bool {
	if o.Violation != nil && o.Violation.Invariant == v.Invariant && o.Violation.Kind == v.Kind {
		return true
	}
	for _, w := range o.Warnings {
		if w.Invariant == v.Invariant {
			return true
		}
	}
	return false
}

// account is what the executor expects for one request id: between min
// and max responses, got so far.
type account struct {
	min, max, got int
	what          string // the request, for messages
	initialize    bool   // the request is an initialize
	// method is the request's method, which decides the schema of its
	// result ("" when unknown or when the id was sent with two methods);
	// tool the tool a tools/call names.
	method, tool string
}

// run is one execution: a connection, the frames, what has been seen.
type run struct {
	c         conn
	transport string
	opt       ExecOptions
	frames    []Frame
	step      int
	acct      map[string]*account
	cancelled map[string]bool // ids a frame cancelled
	cancelAt  map[string]int  // the last frame that cancels each id, of the first indexed
	indexed   int
	version   string
	probes    int
	out       Outcome
	warned    map[Invariant]bool
	// unreadableIDs counts the requests sent with an id a server need
	// not read (of a forbidden type, or past the range a parser may
	// limit) and not yet matched: each lets one answer name an id never
	// sent, judged as the error reply it should have been (SHOULD).
	unreadableIDs int
	// forbidden holds the ids of a forbidden type the fuzzer sent, as
	// written: a server echoing one writes no valid message, which is
	// judged as that error reply too, not as noise on stdout.
	forbidden map[string]bool
	// outputs are the outputSchemas this session's tools/list declared,
	// by tool name.
	outputs map[string]*outputSchema
	// heard says a message of the server's arrived on this connection:
	// until then a wait also gives it StartupGrace (StartupBudget at
	// discovery), the time a process takes to start.
	heard bool
	// The group of frames in flight together (see Wait): the ids the
	// frames sent without waiting require, their sends still under way
	// (HTTP), and whether a frame was sent since the last group ended.
	pending []string
	sends   []*pendingSend
	open    bool
	// tokens maps the progressToken of each request sent to its id;
	// running holds the requests the server showed running (a progress
	// notification) and has not answered; watched the slow calls whose
	// cancel went out while they ran: an answer to one before its group
	// ends breaks NoResponseAfterCancel.
	tokens  map[string]string
	running map[string]bool
	watched map[string]bool
}

// pendingSend is a frame sent without waiting over HTTP, whose exchange
// goes on beside the next frames: the ids it requires, and its outcome.
type pendingSend struct {
	frame Frame
	ids   []string
	done  chan sendResult
	res   *sendResult // its outcome, once taken from done
}

type sendResult struct {
	refused bool
	err     error
}

// Execute sends frames (those for this transport) on a fresh connection to
// t and checks the invariants after each, and with a probe ping after every
// unreadable frame and after the last one. It stops at the first MUST-level
// break.
func Execute(t Target, frames []Frame, opt ExecOptions) (Outcome, error) {
	c, err := t.open(opt.Log)
	if err != nil {
		return Outcome{}, err
	}
	r := newRun(c, t.Transport(), opt)
	r.frames = frames
	r.execute()
	r.closeConn()
	return r.out, nil
}

// closeConn tears the connection down; a process of the server's tree
// that outlives the teardown breaks NoLeftovers, after the last frame.
func (r *run) closeConn() {
	if left := r.c.close(r.opt.grace()); left != "" && r.out.Violation == nil && !r.opt.SpecOnly {
		r.step = len(r.frames)
		r.fail(NoLeftovers, "leftover", left)
	}
}

func newRun(c conn, transport string, opt ExecOptions) *run {
	r := &run{c: c, transport: transport, opt: opt, acct: map[string]*account{}, cancelled: map[string]bool{}, cancelAt: map[string]int{}, warned: map[Invariant]bool{},
		tokens: map[string]string{}, running: map[string]bool{}, watched: map[string]bool{}}
	r.learnOutputs(opt.Outputs)
	return r
}

func (r *run) execute() {
	for r.step = 0; r.step < len(r.frames); r.step++ {
		f := r.frames[r.step]
		if !f.For(r.transport) {
			continue
		}
		if r.sendFrame(f) {
			return
		}
	}
	if r.open {
		// The last frames were sent without waiting: their group ends
		// after the last of them.
		r.step = len(r.frames) - 1
		r.endGroup(nil)
		return
	}
	if len(r.frames) == 0 {
		if probe, ok := r.sendProbe(); ok && probe != "" {
			r.await(probe, AnswersPing, "probe")
		}
	}
}

// sendFrame sends one frame. A frame that waits (WaitAnswers) then awaits
// its answers and those of the frames sent before it without waiting,
// sends a probe ping and awaits its answer, and checks what follows: the
// process, its stdout and its memory (endGroup). true means a MUST break
// ended the run.
func (r *run) sendFrame(f Frame) bool {
	wait := r.expect(f)
	r.out.Sent++
	if f.Wait != WaitAnswers {
		r.open = true
		if r.sendLater(f, wait) {
			return true
		}
		return f.Wait == WaitProgress && r.awaitRunning(f)
	}
	if r.sent(f, wait, r.sendNow(f)) {
		return true
	}
	return r.endGroup(wait)
}

func (r *run) sendNow(f Frame) sendResult {
	refused, err := r.c.send(f)
	return sendResult{refused, err}
}

// sent takes the outcome of sending f, which requires the answers ids: a
// send that failed broke the server; a refused one (an HTTP error status
// without a JSON-RPC body) answered the whole frame (HT-16). true means a
// MUST break ended the run.
func (r *run) sent(f Frame, ids []string, res sendResult) bool {
	if res.err != nil {
		r.fail(Alive, "send", fmt.Sprintf("sending %s failed: %v%s", f, res.err, r.why()))
		return true
	}
	if res.refused {
		for _, id := range ids {
			r.acct[id].min = 0
		}
	}
	return false
}

// sendLater sends a frame that does not wait: over stdio at once (a
// line written), over HTTP in an exchange of its own that goes on beside
// the next frames (its outcome is collected when the group ends). Its
// required answers are awaited when the group ends. true means a MUST
// break ended the run.
func (r *run) sendLater(f Frame, wait []string) bool {
	r.pending = append(r.pending, wait...)
	if r.transport != "http" {
		return r.sent(f, wait, r.sendNow(f))
	}
	done := make(chan sendResult, 1)
	go func() { done <- r.sendNow(f) }()
	r.sends = append(r.sends, &pendingSend{frame: f, ids: wait, done: done})
	return false
}

// endGroup ends a group of frames in flight together: it collects the
// outcome of their exchanges still under way, awaits the answers they
// and the last frame (wait) require, in any order, then sends a probe
// ping and awaits its answer, and settles. The cancels of the group are
// judged no longer (see NoResponseAfterCancel). true means a MUST break
// ended the run.
func (r *run) endGroup(wait []string) bool {
	wait = append(r.pending, wait...)
	r.pending, r.open = nil, false
	if r.collectSends() {
		return true
	}
	for _, id := range wait {
		if r.acct[id].min == 0 {
			continue // refused with an HTTP status, or cancelled since
		}
		if r.await(id, OneResponse, "missing") {
			return true
		}
	}
	// The probe goes out once the frames' answers are in: whatever the
	// server wrote with them (a second answer) comes before the probe's.
	probe, ok := r.sendProbe()
	if !ok {
		return true
	}
	if probe != "" && r.await(probe, AnswersPing, "probe") {
		return true
	}
	if r.settle() {
		return true
	}
	clear(r.watched)
	return false
}

// collectSends takes the outcome of the group's HTTP exchanges that
// carry required requests, each within the timeout: a failed one broke
// the endpoint, a refused one (an HTTP error status without a JSON-RPC
// body, HT-16) answered its requests. One still under way is left to
// finish: its answers are awaited as any. true means a MUST break.
func (r *run) collectSends() bool {
	sends := r.sends
	r.sends = nil
	deadline := time.NewTimer(r.opt.timeout())
	defer deadline.Stop()
	late := false
	for _, s := range sends {
		if len(s.ids) == 0 {
			continue
		}
		if s.res == nil && late {
			select {
			case res := <-s.done:
				s.res = &res
			default:
				continue
			}
		} else if s.res == nil {
			select {
			case res := <-s.done:
				s.res = &res
			case <-deadline.C:
				late = true
				continue
			}
		}
		if r.sent(s.frame, s.ids, *s.res) {
			return true
		}
	}
	return false
}

// awaitRunning waits until the request frame f carries shows it runs (a
// progress notification for its progressToken) or is answered, within the
// timeout; a request that shows neither is not judged when cancelled.
// true means a MUST break ended the run.
func (r *run) awaitRunning(f Frame) bool {
	m, err := jsonrpc.Decode(f.Body)
	if err != nil || m.Kind() != jsonrpc.KindRequest {
		return false
	}
	key := m.ID.Key()
	a := r.acct[key]
	if token, ok := progressToken(m.Params); !ok || r.tokens[token] != key || a == nil || r.opt.quiet[toolOf(m)] {
		// No progress can show it runs: it names no token, or its id
		// (or token) was sent before, so an answer or a progress would
		// not be its own alone.
		return false
	}
	// Over HTTP its exchange goes on beside the wait: an HTTP error status
	// refuses it, and nothing will show it runs.
	var ps *pendingSend
	if len(r.sends) > 0 {
		ps = r.sends[len(r.sends)-1]
	}
	ended := func() bool { return ps != nil && ps.res != nil && (ps.res.refused || ps.res.err != nil) }
	_, broke := r.waitUntil(func() bool { return r.running[key] || a.got > 0 || ended() }, "while "+a.what+" was expected to run", ps)
	return broke
}

// why adds how the server ended, when it did.
func (r *run) why() string {
	if e := r.c.exited(); e != "" {
		return " (" + e + ")"
	}
	return ""
}

// sendProbe sends a ping whose answer proves the server still serves
// (PG-02); it returns the id to await ("" when the transport answered it
// with an HTTP status), and false when sending failed.
func (r *run) sendProbe() (string, bool) {
	r.probes++
	id := jsonrpc.StringID(fmt.Sprintf("mcpconform-probe-%d", r.probes))
	raw, _ := jsonrpc.EncodeCall(id, "ping", nil)
	r.acct[id.Key()] = &account{min: 1, max: 1, what: "the probe ping sent after it"}
	r.out.Sent++
	refused, err := r.c.send(Frame{Body: raw})
	if err != nil {
		r.fail(Alive, "send", fmt.Sprintf("sending the probe ping failed: %v%s", err, r.why()))
		return "", false
	}
	if refused {
		r.acct[id.Key()].min = 0
		return "", true
	}
	return id.Key(), true
}

// idPattern finds ids in frames that do not parse, which a lenient server
// may still answer.
var idPattern = regexp.MustCompile(`"id"\s*:\s*(-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|"(?:[^"\\]|\\.)*")`)

// expect registers what frame f asks of the server and returns the ids
// that must be answered. Only a readable frame is bound: valid UTF-8 and
// JSON as sent (no byte-order mark), one line over stdio, at most
// maxBoundFrame bytes and maxBoundDepth deep; a server may refuse anything
// else any way that keeps it serving, and may answer an id it finds in it.
func (r *run) expect(f Frame) (wait []string) {
	if f.Method != "" {
		return nil
	}
	body := f.Body
	readable := utf8.Valid(body) && json.Valid(body) && len(body) <= maxBoundFrame && depth(body) <= maxBoundDepth &&
		!(r.transport == "stdio" && bytes.ContainsAny(body, "\r\n"))
	if !readable {
		r.optional(body)
		return nil
	}
	// body is valid JSON: its first byte tells an object from an array.
	switch bytes.TrimLeft(body, " \t\r\n")[0] {
	case '{':
		m, err := jsonrpc.Decode(body)
		if err != nil {
			r.optional(body)
			return nil
		}
		return r.expectMessage(m, true)
	case '[':
		ms, err := jsonrpc.DecodeBatch(body)
		if err != nil {
			r.optional(body)
			return nil
		}
		// Batches bind only 2025-03-26 (JR-35); later versions may refuse
		// them any way that does not crash (JR-37).
		required := r.version == "2025-03-26"
		for _, m := range ms {
			wait = append(wait, r.expectMessage(m, required)...)
		}
		return wait
	}
	r.optional(body)
	return nil
}

// The largest and deepest frames a server is bound to answer: beyond, it
// may refuse them (no rule sets a size, and parsers bound depth).
const (
	maxBoundFrame = 64 << 10
	maxBoundDepth = 64
)

// depth is how deeply b's brackets nest, outside strings.
func depth(b []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

// optional lets the ids that appear in an unreadable frame be answered once.
func (r *run) optional(body []byte) {
	for _, m := range idPattern.FindAllSubmatch(body, 8) {
		r.allowOnce(idKey(m[1]), "an unreadable frame naming id "+string(m[1]))
	}
	if raw, ok := forbiddenID(body); ok {
		r.unreadableIDs++
		if r.forbidden == nil {
			r.forbidden = map[string]bool{}
		}
		r.forbidden[compact(raw)] = true
	}
}

// idKey is the key of an id as JSON-RPC reads it, by value (-0 is 0, 1.0
// is 1); the text itself for one it cannot read.
func idKey(raw []byte) string {
	var id jsonrpc.ID
	if err := json.Unmarshal(raw, &id); err != nil || id.IsZero() {
		return string(bytes.TrimSpace(raw))
	}
	return id.Key()
}

// forbiddenID returns the id of a request whose id is of a type JSON-RPC
// and MCP forbid (JR-03, JR-04: fractional, boolean, null, an object, an
// array, a number past float64's range), as written.
func forbiddenID(body []byte) (string, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.ID == nil || m.Method == nil {
		return "", false
	}
	var id jsonrpc.ID
	if err := json.Unmarshal(m.ID, &id); err == nil && !id.IsZero() {
		return "", false
	}
	return string(bytes.TrimSpace(m.ID)), true
}

// compact is JSON text without its insignificant spaces, so that an id
// echoed with other spacing is still the id sent.
func compact(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) != nil {
		return s
	}
	return b.String()
}

// maxReadable is the largest id magnitude every parser reads exactly
// (RFC 8259, section 6, lets a parser limit the range of numbers; 2^53-1
// interoperates).
const maxReadable = 1<<53 - 1

// pastRange reports whether id is an integer past ±maxReadable.
func pastRange(id jsonrpc.ID) bool {
	if id.IsString() || id.IsZero() {
		return false
	}
	n, err := strconv.ParseInt(id.Key(), 10, 64)
	return err != nil || n > maxReadable || n < -maxReadable
}

// expectMessage registers one decoded message the fuzzer sends.
func (r *run) expectMessage(m *jsonrpc.Message, required bool) (wait []string) {
	switch m.Kind() {
	case jsonrpc.KindNotification:
		if key, ok := cancelTarget(m); ok {
			if a := r.acct[key]; a != nil {
				a.min = 0 // a cancelled request may go unanswered (CN-04)
				if r.running[key] && a.max == 1 && a.method == "tools/call" && slices.Contains(r.opt.SlowTools, a.tool) {
					r.watched[key] = true
				}
			}
			// A cancel may overtake its request on a concurrent transport,
			// so a server may apply it to a request that comes later.
			r.cancelled[key] = true
		}
		return nil
	case jsonrpc.KindResult, jsonrpc.KindError:
		// A response to nothing: the server should ignore it; an answer to
		// it is tolerated once.
		if !m.ID.IsZero() {
			r.allowOnce(m.ID.Key(), "a response the fuzzer sent")
		}
		return nil
	}
	key := m.ID.Key()
	what := fmt.Sprintf("request id %s (%s)", m.ID, m.Method)
	switch {
	case r.acct[key] != nil:
		// A reused id (JR-05 binds the fuzzer, which breaks it on purpose):
		// the server may answer it again or not. A reused id on an
		// initialize still carries the version its answer negotiates,
		// which decides whether a later batch binds (JR-35).
		a := r.acct[key]
		a.max++
		if pastRange(m.ID) {
			// Each request with an id the server need not read may come
			// back under another id (a parser's wrapped integer), once.
			r.unreadableIDs++
		}
		a.initialize = a.initialize || m.Method == "initialize"
		if a.method != m.Method || a.tool != toolOf(m) {
			a.method, a.tool = "", ""
		}
		return nil
	case strings.HasPrefix(m.Method, "notifications/"):
		// A notification's method with an id: a request by shape, which a
		// server may answer or treat as the notification it names.
		r.allowOnce(key, what)
		return nil
	case pastRange(m.ID):
		// A parser may limit the range of numbers (RFC 8259, section 6):
		// the server may refuse the request, and only the error reply it
		// should send is judged (JR-21, SHOULD).
		r.acct[key] = &account{max: 1, what: what + ", an id past 2^53-1"}
		r.unreadableIDs++
		return nil
	}
	if token, ok := progressToken(m.Params); ok {
		r.tokens[token] = key
	}
	if !required || r.cancelled[key] || r.cancelledLater(key) {
		r.acct[key] = &account{max: 1, what: what, method: m.Method, tool: toolOf(m)}
		return nil
	}
	r.acct[key] = &account{min: 1, max: 1, what: what, initialize: m.Method == "initialize", method: m.Method, tool: toolOf(m)}
	return []string{key}
}

// progressToken is the key of the progressToken params carry
// (_meta.progressToken, a string or an integer), as idKey reads it.
func progressToken(params json.RawMessage) (string, bool) {
	var p struct {
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
		ProgressToken json.RawMessage `json:"progressToken"` // a notification's
	}
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	raw := cmp.Or(string(p.Meta.ProgressToken), string(p.ProgressToken))
	if raw == "" || raw == "null" {
		return "", false
	}
	return idKey([]byte(raw)), true
}

func (r *run) allowOnce(key, what string) {
	if a := r.acct[key]; a != nil {
		a.max++
		a.method, a.tool = "", ""
		return
	}
	r.acct[key] = &account{max: 1, what: what}
}

// cancelledLater reports whether a later frame cancels the request id key:
// that request is not waited for.
func (r *run) cancelledLater(key string) bool {
	for ; r.indexed < len(r.frames); r.indexed++ {
		f := r.frames[r.indexed]
		if !f.For(r.transport) || f.Method != "" || !bytes.Contains(f.Body, []byte("notifications/cancelled")) {
			continue
		}
		if m, err := jsonrpc.Decode(f.Body); err == nil {
			if target, ok := cancelTarget(m); ok {
				r.cancelAt[target] = r.indexed
			}
		}
	}
	at, ok := r.cancelAt[key]
	return ok && at > r.step
}

// cancelTarget is the id key a notifications/cancelled names.
func cancelTarget(m *jsonrpc.Message) (string, bool) {
	if m.Kind() != jsonrpc.KindNotification || m.Method != "notifications/cancelled" {
		return "", false
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return "", false
	}
	return idKey(p.RequestID), true
}

// await waits for the answer to the request id key; a missing one breaks
// inv. true means a MUST break ended the run.
func (r *run) await(key string, inv Invariant, kind string) bool {
	a := r.acct[key]
	met, broke := r.waitUntil(func() bool { return a.got >= 1 }, "before it answered "+a.what, nil)
	switch {
	case met || broke:
		return broke
	case a.method == "tools/call":
		return r.abandon(key, a)
	}
	r.fail(inv, kind, fmt.Sprintf("no answer to %s within %s", a.what, r.opt.timeout()))
	return true
}

// waitUntil takes the server's messages until met holds, within the
// timeout; when says, for a message, when the server's output ended.
// The outcome of the exchange ps (when not nil) is taken as it comes, for
// met to read. broke means a MUST break ended the run.
func (r *run) waitUntil(met func() bool, when string, ps *pendingSend) (ok, broke bool) {
	deadline := time.NewTimer(r.opt.timeout())
	defer deadline.Stop()
	paused := r.c.paused()
	graced := false
	for !met() {
		var sent <-chan sendResult // nil, which never delivers, without one
		if ps != nil && ps.res == nil {
			sent = ps.done
		}
		select {
		case res := <-sent:
			ps.res = &res
		case m, ok := <-r.c.messages():
			if !ok {
				r.fail(Alive, "exit", fmt.Sprintf("the server's output ended %s%s", when, r.why()))
				return false, true
			}
			r.heard = true
			// Noise on stdout is noted before the message after it is
			// delivered, so each message is the moment to look.
			if r.receive(m) || r.broken() {
				return false, true
			}
		case <-deadline.C:
			if r.broken() {
				return false, true
			}
			// The retry delays the server asked for are its own time,
			// not the answer's.
			if now := r.c.paused(); now > paused {
				deadline.Reset(now - paused)
				paused = now
				continue
			}
			// A process that has said nothing yet may still be starting:
			// its start is not the answer's time.
			if !r.heard && !graced {
				graced = true
				deadline.Reset(StartupGrace)
				continue
			}
			return false, false
		}
	}
	return true, false
}

// abandon gives up on a tools/call still unanswered at the timeout: a tool
// may take any time (server-everything's trigger-long-running-operation
// runs for as many steps as it is given), and no rule bounds it, so the
// fuzzer does what a client that times out should (CN-01: it cancels the
// request and stops waiting) and the call may go unanswered; the probe ping
// that follows still proves the server serves. A server that stopped
// answering everything is found by that probe. true means sending the
// cancel failed and ended the run.
func (r *run) abandon(key string, a *account) bool {
	a.min = 0
	r.cancelled[key] = true
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]any{"requestId": json.RawMessage(key), "reason": fmt.Sprintf("mcpconform fuzz: no answer within %s", r.opt.timeout())}})
	r.out.Sent++
	if _, err := r.c.send(Frame{Body: raw}); err != nil {
		r.fail(Alive, "send", fmt.Sprintf("sending the cancel of %s failed: %v%s", a.what, err, r.why()))
		return true
	}
	return false
}

// settle takes the messages that have already arrived, then checks the
// process, its stdout and its memory.
func (r *run) settle() bool {
	for drained := false; !drained; {
		select {
		case m, ok := <-r.c.messages():
			if !ok {
				drained = true
			} else if r.heard = true; r.receive(m) {
				return true
			}
		default:
			drained = true
		}
	}
	if r.broken() {
		return true
	}
	if r.opt.MaxRSS > 0 && !r.opt.SpecOnly {
		if rss, ok := r.c.rss(false); ok {
			r.out.Peak = max(r.out.Peak, rss)
			if rss > r.opt.MaxRSS+r.opt.rssSlack {
				r.fail(MaxRSS, "rss", fmt.Sprintf("the server's process group holds %s resident, over --max-rss %s", report.Size(rss), report.Size(r.opt.MaxRSS)))
				return true
			}
		}
	}
	return false
}

// broken checks what needs no message: stdout carried only JSON-RPC, the
// process lives. true means one broke.
func (r *run) broken() bool {
	if noise := r.c.stdoutNoise(r.echoed); noise != "" {
		r.fail(StdoutJSON, "noise", noise)
		return true
	}
	if e := r.c.exited(); e != "" {
		r.fail(Alive, "exit", e)
		return true
	}
	return false
}

// echoed excuses a response whose id is of a forbidden type when the
// fuzzer sent that id: the server answered a request it should have
// refused, which only the error reply's rule judges (JR-21, SHOULD).
func (r *run) echoed(id string) bool {
	if !r.forbidden[compact(id)] {
		return false
	}
	r.warn(ErrorReply, fmt.Sprintf("a request with the forbidden id %s was answered with that id; JSON-RPC says -32600 (invalid request) with a null id", id))
	return true
}

// receive judges one message from the server; true means a MUST break.
func (r *run) receive(m *jsonrpc.Message) bool {
	switch m.Kind() {
	case jsonrpc.KindRequest:
		r.answer(m)
		return r.checkSchema(m, "")
	case jsonrpc.KindNotification:
		if m.Method == "notifications/progress" {
			r.progressed(m.Params)
		}
		return r.checkSchema(m, "")
	}
	if m.ID.IsZero() {
		// Over HTTP a transport error rides in the body with the status
		// (-32000 by the spec's own examples); only stdio is judged.
		if r.transport == "stdio" && m.Error != nil && !standardCode(m.Error.Code) {
			r.warn(ErrorReply, fmt.Sprintf("an unreadable frame was answered with error code %d; JSON-RPC says -32700 (parse error) or -32600 (invalid request)", m.Error.Code))
		}
		return false
	}
	a := r.acct[m.ID.Key()]
	if a == nil && r.unreadableIDs > 0 {
		// The answer to a request whose id the server need not read:
		// JSON-RPC says -32600 with a null id.
		r.unreadableIDs--
		r.warn(ErrorReply, fmt.Sprintf("a request whose id a parser need not read (of a forbidden type, or past 2^53-1) was answered with id %s; JSON-RPC says -32600 (invalid request) with a null id", m.ID))
		return false
	}
	if a == nil {
		r.fail(OneResponse, "unknown", fmt.Sprintf("the server sent a response with id %s, which no frame carried", m.ID))
		return true
	}
	a.got++
	if a.got > a.max {
		r.fail(OneResponse, "duplicate", fmt.Sprintf("%s was answered %d times", a.what, a.got))
		return true
	}
	delete(r.running, m.ID.Key())
	if r.watched[m.ID.Key()] {
		delete(r.watched, m.ID.Key())
		if r.answeredAfterCancel(a, m) {
			return true
		}
	}
	if a.initialize && m.Kind() == jsonrpc.KindResult {
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(m.Result, &res) == nil {
			r.version = res.ProtocolVersion
		}
	}
	if r.checkSchema(m, a.method) {
		return true
	}
	if m.Kind() == jsonrpc.KindResult {
		switch a.method {
		case "tools/list":
			r.learnTools(m.Result)
		case "tools/call":
			return r.checkOutput(a.tool, m.Result)
		}
	}
	return false
}

func standardCode(code int64) bool { return code <= -32600 && code >= -32700 }

// answer replies to the server's own request: a ping with an empty
// result, anything else with method-not-found (the fuzzer declares no
// client capabilities).
func (r *run) answer(m *jsonrpc.Message) {
	var reply *jsonrpc.Message
	if m.Method == "ping" {
		reply, _ = jsonrpc.NewResult(m.ID, map[string]any{})
	} else {
		reply = jsonrpc.NewError(m.ID, jsonrpc.CodeMethodNotFound, "the fuzzer offers no client features")
	}
	if raw, err := jsonrpc.Encode(reply); err == nil {
		_, _ = r.c.send(Frame{Body: raw})
	}
}

func (r *run) fail(inv Invariant, kind, detail string) {
	if r.out.Violation == nil {
		r.out.Violation = &Violation{Invariant: inv, Kind: kind, Step: r.step, Detail: detail}
	}
}

func (r *run) warn(inv Invariant, detail string) {
	if !r.warned[inv] {
		r.warned[inv] = true
		frames := append([]Frame(nil), r.frames[:min(r.step+1, len(r.frames))]...)
		r.out.Warnings = append(r.out.Warnings, &Violation{Invariant: inv, Step: r.step, Detail: detail, Frames: frames, Warning: true})
	}
}
