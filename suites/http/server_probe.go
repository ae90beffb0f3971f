package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	nethttp "net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/sse"
	"github.com/mcpconform/mcpconform/harness/transcript"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Versions the probe proposes.
const (
	latestLegacy = "2025-11-25"
	oldest       = "2025-03-26"
)

// maxBody bounds what the probe reads of one reply.
const maxBody = 4 << 20

// probe speaks raw HTTP to the server under test: what a check uses to make
// the server show a behaviour. Every exchange is recorded in the check's
// transcript (rt).
type probe struct {
	c      *run.C
	url    string
	rt     nethttp.RoundTripper
	client *nethttp.Client
	nextID int
	// sessions opened by this check, ended with DELETE when it ends.
	mu       sync.Mutex
	sessions []string
	// answered: the server replied to one of the check's requests; until
	// then a reply's wait also has the start-up budget (StartupBudget).
	answered atomic.Bool
}

// newProbe is a probe whose requests carry the run's token when the
// server is protected and the run has a token command
// (run.RunTokenTransport).
func newProbe(c *run.C) *probe { return newProbeVia(c, run.RunTokenTransport(nil)) }

// newProbeVia is a probe whose requests go through next.
func newProbeVia(c *run.C, next nethttp.RoundTripper) *probe {
	url := c.Options().ServerURL
	if url == "" {
		c.Skip(run.NoServerURL)
	}
	rt := &transcript.HTTPRecorder{Next: next, Log: c.Log()}
	p := &probe{c: c, url: url, rt: rt, client: &nethttp.Client{Transport: rt, Timeout: c.Options().CheckDeadline}}
	c.Cleanup(p.endSessions)
	return p
}

// reply is one HTTP exchange as the probe saw it.
type reply struct {
	Status   int
	Header   nethttp.Header
	Body     []byte             // a JSON body (capped)
	Events   []sse.Event        // SSE events, in order
	Messages []*jsonrpc.Message // JSON-RPC messages from the body or the events
	Ended    bool               // an SSE body reached its end within the wait
	// Dropped: the SSE body ended before the response to its request, so
	// the probe resumed it (resume); RetryBeforeDrop: an event before the
	// end carried a retry field (HT-29b).
	Dropped, RetryBeforeDrop bool
	// Cancelled: the request (a tool call) was cancelled before its
	// response came (callTool), so what the server would have sent for it
	// later was not observed.
	Cancelled bool
	// Last is when the reply's last message (or its body) was read.
	Last time.Time
	// Token is the progress token of the tool call it answers (callTool).
	Token string
}

// ContentType returns the media type of the reply without parameters.
func (r *reply) ContentType() string {
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.TrimSpace(strings.ToLower(ct))
}

// response returns the JSON-RPC response with id among the reply's messages.
func (r *reply) response(id jsonrpc.ID) *jsonrpc.Message {
	for _, m := range r.Messages {
		if (m.Kind() == jsonrpc.KindResult || m.Kind() == jsonrpc.KindError) && m.ID.Key() == id.Key() {
			return m
		}
	}
	return nil
}

// headers for one request.
type headers map[string]string

// id returns a fresh request id.
func (p *probe) id() jsonrpc.ID {
	p.nextID++
	return jsonrpc.IntID(int64(p.nextID))
}

// post sends body and reads the reply. An SSE reply is read until the
// response to wait arrives (when wait is not zero) and then, for at most
// linger, until the stream ends.
func (p *probe) post(body []byte, h headers, wait jsonrpc.ID, linger time.Duration) *reply {
	return p.do(p.request(body, h), wait, linger)
}

// request builds the POST of body with the headers of a client and h.
func (p *probe) request(body []byte, h headers) *nethttp.Request {
	req, err := nethttp.NewRequestWithContext(p.c.Ctx, nethttp.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		p.c.Failf("a request can be built", "%v", err)
	}
	req.Header.Set("Content-Type", mcp.ContentTypeJSON)
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	return req
}

func (p *probe) do(req *nethttp.Request, wait jsonrpc.ID, linger time.Duration) *reply {
	d := p.c.Options().Patience
	if !p.answered.Load() {
		d += p.c.StartupBudget(check.HTTP)
	}
	r, err := p.exchange(req, reading{wait: wait, linger: linger, deadline: time.Now().Add(d)})
	if err != nil {
		if !p.answered.Load() && run.Unreachable(err) {
			p.c.NotStarted("the HTTP session could not be opened: %v; the era probe reached the server, so it is unsteady: rerun, or check that nothing else stops it", transcript.RedactError(err))
		}
		p.c.Failf("the server answers "+req.Method, "%v", transcript.RedactError(err))
	}
	p.answered.Store(true)
	return r
}

// exchange sends req and reads its reply as rd says.
func (p *probe) exchange(req *nethttp.Request, rd reading) (*reply, error) {
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	r := &reply{Status: resp.StatusCode, Header: resp.Header}
	if r.ContentType() == mcp.ContentTypeSSE {
		p.readEvents(resp.Body, r, rd)
		return r, nil
	}
	r.Body, _ = io.ReadAll(io.LimitReader(resp.Body, maxBody))
	r.Messages, r.Last = decodeBody(r.Body), time.Now()
	return r, nil
}

// reading says how far an SSE reply is read: until the response to wait
// (none when zero), then until the stream ends or linger passes, and in
// any case no later than deadline. first ends the read at the first event:
// a slow tool's stream is read until it opened, then cancelled.
type reading struct {
	wait     jsonrpc.ID
	linger   time.Duration
	deadline time.Time
	first    bool
}

// readEvents reads the SSE events of r as rd says.
func (p *probe) readEvents(body io.ReadCloser, r *reply, rd reading) {
	type next struct {
		ev  sse.Event
		err error
	}
	events := make(chan next)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		sse := sse.NewReader(body, maxBody)
		for {
			ev, err := sse.Next()
			select {
			case events <- next{ev, err}:
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	deadline := time.NewTimer(time.Until(rd.deadline))
	defer deadline.Stop()
	answered := rd.wait.IsZero()
	var lingerC <-chan time.Time
	if answered {
		lingerC = time.After(rd.linger)
	}
	for {
		select {
		case n := <-events:
			if n.err != nil {
				// A read the check itself cut (its budget, its end) is no
				// end of the stream.
				r.Ended = !errors.Is(n.err, context.Canceled) && !errors.Is(n.err, context.DeadlineExceeded)
				body.Close()
				return
			}
			r.Events = append(r.Events, n.ev)
			if m, err := jsonrpc.Decode([]byte(n.ev.Data)); err == nil {
				r.Messages, r.Last = append(r.Messages, m), time.Now()
				if !answered && r.response(rd.wait) != nil {
					answered, lingerC = true, time.After(rd.linger)
				}
			}
			if rd.first && !answered {
				body.Close()
				return
			}
		case <-lingerC:
			body.Close()
			return
		case <-deadline.C:
			body.Close()
			return
		}
	}
}

func decodeBody(b []byte) []*jsonrpc.Message { return jsonrpc.DecodeAny(bytes.TrimSpace(b)) }

// message encodes a JSON-RPC message for a body.
func (p *probe) message(id jsonrpc.ID, method string, params any) []byte {
	b, err := jsonrpc.EncodeCall(id, method, params)
	if err != nil {
		p.c.Failf("the probe can encode "+method, "%v", err)
	}
	return b
}

// session is an initialized session of the server under test.
type session struct {
	ID      string // empty for a stateless server
	Version string // the negotiated protocol version
}

// headers returns the headers every request of the session carries.
func (s session) headers() headers {
	h := headers{mcp.HeaderProtocolVersion: s.Version}
	if s.ID != "" {
		h[mcp.HeaderSessionID] = s.ID
	}
	return h
}

// initialize opens a session proposing version and sends
// notifications/initialized.
func (p *probe) initialize(version string) session {
	r, id := p.sendInitialize(version, func(req *nethttp.Request) {})
	resp := r.response(id)
	p.c.Require(r.Status == nethttp.StatusOK && resp != nil && resp.Error == nil,
		"initialize succeeds (200 with its result)", "%s", r.describe())
	var result struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(resp.Result, &result)
	s := session{ID: r.Header.Get(mcp.HeaderSessionID), Version: result.ProtocolVersion}
	n := p.post(p.message(jsonrpc.ID{}, "notifications/initialized", nil), s.headers(), jsonrpc.ID{}, 0)
	p.c.Require(n.Status/100 == 2, "notifications/initialized is accepted", "status %d", n.Status)
	return s
}

// sendInitialize POSTs initialize proposing version, with edit applied to
// the request (a foreign Origin or Host), and returns the reply; a session
// the server opens is ended when the check ends.
func (p *probe) sendInitialize(version string, edit func(*nethttp.Request)) (*reply, jsonrpc.ID) {
	id := p.id()
	params := map[string]any{"protocolVersion": version, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpconform-probe", "version": "1"}}
	req := p.request(p.message(id, "initialize", params), nil)
	edit(req)
	r := p.do(req, id, 0)
	if sid := r.Header.Get(mcp.HeaderSessionID); sid != "" {
		p.mu.Lock()
		p.sessions = append(p.sessions, sid)
		p.mu.Unlock()
	}
	return r, id
}

// call sends a request on the session and returns the reply, read until
// its response (and, for SSE, for linger more).
func (p *probe) call(s session, method string, params any, linger time.Duration) (*reply, jsonrpc.ID) {
	id := p.id()
	return p.post(p.message(id, method, params), s.headers(), id, linger), id
}

// callTool calls a tool on the session and reads the reply until its
// response, within the run's ToolBudget: the budget bounds the wait for the
// reply's head, its events and any resumption (resume). A call still
// unanswered then is cancelled (notifications/cancelled) and its reply
// marked Cancelled. A slow tool (one that answers only when cancelled, run.SlowTools)
// is not waited for: its reply is read until its first event, then the call
// is cancelled.
func (p *probe) callTool(s session, name string, args map[string]any, slow bool) *reply {
	id := p.id()
	budget := p.c.ToolBudget()
	token := "mcpconform-" + name
	body := p.message(id, "tools/call", map[string]any{"name": name, "arguments": args,
		"_meta": map[string]any{"progressToken": token}})
	ctx, cancel := context.WithTimeout(p.c.Ctx, budget)
	defer cancel()
	rd := reading{wait: id, deadline: time.Now().Add(budget), first: slow}
	r, err := p.exchange(p.request(body, s.headers()).WithContext(ctx), rd)
	switch {
	case err != nil && ctx.Err() == nil:
		p.c.Failf("the server answers tools/call of "+name, "%v", err)
	case err != nil:
		r = &reply{Header: nethttp.Header{}} // no reply head within the budget
	default:
		p.resume(s, r, id, rd.deadline)
	}
	if r.response(id) == nil {
		r.Cancelled = true
		why := fmt.Sprintf("mcpconform: no answer within the tool budget of %s", budget)
		if slow {
			why = "mcpconform: a slow tool, cancelled once its call opened"
		}
		p.post(p.message(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": id, "reason": why}), s.headers(), jsonrpc.ID{}, 0)
	}
	r.Token = token
	return r
}

// maxResumes bounds how many times resume reconnects to one stream.
const maxResumes = 3

// resume reads on when the SSE stream of reply r ended before the response
// to id, as a client does (HT-45): it waits the delay of the stream's retry
// field (HT-29b), then GETs with Last-Event-ID set to the last event id it
// read, and adds what that connection brings to r, all before deadline. It
// stops once the response is there, when the server does not resume the
// stream (no event id to resume from, a refusal, nothing new), after
// maxResumes reconnections, or at the deadline. A resumption that fails is
// no failure of the check: the checks about resuming judge that.
func (p *probe) resume(s session, r *reply, id jsonrpc.ID, deadline time.Time) {
	for i := range maxResumes {
		last, retry := resumeFrom(r.Events)
		if !r.Ended || r.response(id) != nil || last == "" {
			return
		}
		if i == 0 {
			r.Dropped = true
			r.RetryBeforeDrop = slices.ContainsFunc(r.Events, func(ev sse.Event) bool { return ev.HasRetry })
		}
		if time.Now().Add(retry).After(deadline) {
			return
		}
		wait := time.NewTimer(retry)
		select {
		case <-p.c.Ctx.Done():
			wait.Stop()
			return
		case <-wait.C:
		}
		ctx, cancel := context.WithDeadline(p.c.Ctx, deadline)
		defer cancel()
		req, err := nethttp.NewRequestWithContext(ctx, nethttp.MethodGet, p.url, nil)
		if err != nil {
			return
		}
		req.Header.Set("Accept", mcp.ContentTypeSSE)
		for k, v := range s.headers() {
			req.Header.Set(k, v)
		}
		req.Header.Set(mcp.HeaderLastEventID, last)
		resp, err := p.client.Do(req)
		if err != nil {
			return
		}
		more := &reply{Status: resp.StatusCode, Header: resp.Header}
		if resp.StatusCode != nethttp.StatusOK || more.ContentType() != mcp.ContentTypeSSE {
			resp.Body.Close()
			return
		}
		p.readEvents(resp.Body, more, reading{wait: id, deadline: deadline})
		resp.Body.Close()
		if len(more.Events) == 0 {
			return
		}
		r.Events = append(r.Events, more.Events...)
		r.Messages = append(r.Messages, more.Messages...)
		r.Ended = more.Ended
		if more.Last.After(r.Last) {
			r.Last = more.Last
		}
	}
}

// resumeFrom finds where a stream resumes: the id of its last event that had
// one, and the reconnection delay of its last retry field (0 without one).
func resumeFrom(events []sse.Event) (lastID string, retry time.Duration) {
	for _, ev := range events {
		if ev.ID != "" {
			lastID = ev.ID
		}
		if ev.HasRetry {
			retry = ev.Retry
		}
	}
	return lastID, retry
}

// endSessions ends the check's sessions with DELETE.
func (p *probe) endSessions() {
	p.mu.Lock()
	ids := p.sessions
	p.sessions = nil
	p.mu.Unlock()
	for _, id := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		req, err := nethttp.NewRequestWithContext(ctx, nethttp.MethodDelete, p.url, nil)
		if err == nil {
			req.Header.Set(mcp.HeaderSessionID, id)
			if resp, err := p.client.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		cancel()
	}
}

// describe renders a reply for a failure message: its status and
// Content-Type, and what its body or events carried.
func (r *reply) describe() string {
	s := fmt.Sprintf("status %d, Content-Type %q", r.Status, r.Header.Get("Content-Type"))
	if r.ContentType() == mcp.ContentTypeSSE {
		s += fmt.Sprintf(", %d event(s)", len(r.Events))
	} else if len(r.Messages) == 0 && len(bytes.TrimSpace(r.Body)) > 0 {
		s += fmt.Sprintf(", a body of %d bytes that is not JSON-RPC", len(r.Body))
	}
	if len(r.Messages) == 0 {
		return s + ", no JSON-RPC message"
	}
	const shown = 4
	var ms []string
	for _, m := range r.Messages[:min(shown, len(r.Messages))] {
		ms = append(ms, describeMessage(m))
	}
	if len(r.Messages) > shown {
		ms = append(ms, fmt.Sprintf("%d more", len(r.Messages)-shown))
	}
	return s + fmt.Sprintf(", %d message(s): %s", len(r.Messages), strings.Join(ms, "; "))
}

// describeMessage names a message by its kind, id and, for an error, its
// code and text.
func describeMessage(m *jsonrpc.Message) string {
	switch k := m.Kind(); {
	case m.Error != nil:
		msg := m.Error.Message
		if r := []rune(msg); len(r) > 80 {
			msg = string(r[:80]) + "…"
		}
		return fmt.Sprintf("error %d %q with id %s", m.Error.Code, msg, m.ID)
	case m.Method != "":
		return fmt.Sprintf("a %s %s", k, m.Method)
	default:
		return fmt.Sprintf("a %s with id %s", k, m.ID)
	}
}
