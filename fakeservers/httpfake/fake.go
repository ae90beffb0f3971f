package httpfake

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// Options select and parameterise one HTTP fake server (Start). A
// zero field means the default named next to it; a case that needs a value
// without a default (ExpireAfter, SSEEventSize) says so when it starts.
//
// SSEEventSize is counted as RM-09 counts: the big event is two lines,
//
//	id: ev-<n>
//	data: <one JSON message, its last string member padded with 'x'>
//
// and its raw size is the bytes of both lines plus one per line break (a
// CRLF counts 1), the blank line that ends the event not counted. A size
// smaller than the event without padding makes the call answer a JSON-RPC
// error (-32603) naming the smallest size that works.
type Options struct {
	Case         string        // a case ID from Cases
	ExpireAfter  int           // expire-after: the first session expires after this many POSTs carrying it
	SSEEventSize int           // raw size of the big SSE event (sse-event, sse-huge, sse-crlf-split)
	Delay        time.Duration // how long slow replies take; 0 means DefaultDelay
	Tools        int           // tools offered: cases with several, 0 means DefaultTools; cases with one (echo), t1…tN when set
	RetryMS      int           // resume, odd-answers: the SSE retry field value; 0 means DefaultRetryMS
	Stateless    bool          // hand out no session id, whatever the case
	Fuzz         *FuzzScript   // fuzz: the plan of each tool's calls
	RefURL       string        // output-schema: the base URL its remote $ref points under
	// Era is the protocol era the fake serves (fakeservers.Era); empty
	// means legacy. The cases of sessions, the GET stream, resumption and
	// server requests serve the legacy era only (a modern fake of theirs
	// is an error).
	Era fakeservers.Era
	// StrictInit makes a legacy fake answer every POST without a session
	// that is no initialize, server/discover included, with 400 and a
	// -32600 body (fakeservers.NotInitialized) instead of serving the
	// probe.
	StrictInit bool
	// ToolAlias, when set, is the name the first tool is listed under, and
	// a tools/call of it calls the first tool: a conformance client's
	// scenario calls the official suite's tool (add_numbers) by name.
	ToolAlias string
}

// Defaults of Options fields left zero.
const (
	DefaultDelay   = time.Second
	DefaultTools   = 2
	DefaultRetryMS = 200
)

// maxBody bounds a request body the fake reads; a longer body gets 413.
const maxBody = 4 << 20

// Fake is one running HTTP fake server: a scripted streamable-HTTP MCP
// server listening on 127.0.0.1 in the harness's own process, for certifying
// an HTTP client that runs elsewhere and is given URL. It records every HTTP
// request it receives (Requests). Close it when the check is done.
type Fake struct {
	o       Options
	b       *behaviour
	ctx     context.Context // done at Close: every waiting handler returns
	cancel  context.CancelFunc
	urls    []string // the endpoint of each listener; [0] is URL
	servers []*http.Server
	serving sync.WaitGroup // the Serve loops

	stopping atomic.Bool // Close began: a request cut off now was not left by its client

	mu       sync.Mutex
	handlers sync.WaitGroup // running handlers; Add only under mu, before stopping
	records  []Request
	updated  chan struct{} // closed and replaced whenever the record changes
	sessions map[string]*session
	made     int // sessions created so far
	calls    int // tools/call requests received so far
	events   int // SSE event ids handed out so far
	ordinary gauge
	streams  gauge

	closeOnce sync.Once
	closeErr  error
}

// gauge counts things in progress and remembers the peak.
type gauge struct{ now, peak int }

func (g *gauge) up() {
	g.now++
	g.peak = max(g.peak, g.now)
}

func (g *gauge) down() { g.now-- }

// Start starts the fake of case o.Case on 127.0.0.1 (the redirect case on
// two ports). An unknown case or invalid options are an error that names the
// case, the option and, for an unknown case, every case ID.
func Start(o Options) (*Fake, error) {
	b, err := build(o)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &Fake{
		o:        o,
		b:        b,
		ctx:      ctx,
		cancel:   cancel,
		updated:  make(chan struct{}),
		sessions: map[string]*session{},
	}
	var lns []net.Listener
	for range max(1, b.listeners) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			for _, ln := range lns {
				ln.Close()
			}
			cancel()
			return nil, fmt.Errorf("http fake %s: listen on 127.0.0.1: %w", o.Case, err)
		}
		lns = append(lns, ln)
		f.urls = append(f.urls, "http://"+ln.Addr().String()+mcp.EndpointPath)
	}
	for i, ln := range lns {
		srv := &http.Server{Handler: listener{f: f, index: i}, ReadHeaderTimeout: readHeaderTimeout}
		f.servers = append(f.servers, srv)
		f.serving.Go(func() { _ = srv.Serve(ln) })
	}
	return f, nil
}

// readHeaderTimeout bounds how long a client may take to send a
// request's headers.
const readHeaderTimeout = 10 * time.Second

// build validates o and builds its case's behaviour.
func build(o Options) (*behaviour, error) {
	c, ok := cases[o.Case]
	if !ok {
		return nil, fmt.Errorf("http fake: unknown case %q; cases: %s", o.Case, strings.Join(CaseIDs(), ", "))
	}
	for _, v := range []struct {
		name     string
		value    any
		negative bool
	}{
		{"ExpireAfter", o.ExpireAfter, o.ExpireAfter < 0},
		{"SSEEventSize", o.SSEEventSize, o.SSEEventSize < 0},
		{"Delay", o.Delay, o.Delay < 0},
		{"Tools", o.Tools, o.Tools < 0},
		{"RetryMS", o.RetryMS, o.RetryMS < 0},
	} {
		if v.negative {
			return nil, fmt.Errorf("http fake %s: %s must be 0 or more, got %v", o.Case, v.name, v.value)
		}
	}
	b, err := c.build(o.withDefaults())
	if err != nil {
		return nil, fmt.Errorf("http fake %s: %w", o.Case, err)
	}
	if o.Tools > 0 && len(b.tools) == 0 {
		b.tools = numberedTools("t", o.Tools)
	}
	if o.Stateless {
		if c.sessions {
			return nil, fmt.Errorf("http fake %s: the case expires sessions, so it cannot be Stateless; drop Stateless or pick another case", o.Case)
		}
		b.stateless = true
	}
	if err := checkEra(o, c); err != nil {
		return nil, fmt.Errorf("http fake %s: %w", o.Case, err)
	}
	return b, nil
}

// withDefaults fills the zero fields that have defaults.
func (o Options) withDefaults() Options {
	if o.Delay == 0 {
		o.Delay = DefaultDelay
	}
	if o.Tools == 0 {
		o.Tools = DefaultTools
	}
	if o.RetryMS == 0 {
		o.RetryMS = DefaultRetryMS
	}
	return o
}

// URL is the endpoint the client under test is given:
// http://127.0.0.1:PORT/mcp.
func (f *Fake) URL() string { return f.urls[0] }

// SecondURL is the endpoint of the redirect case's second listener (another
// origin, where POSTs are redirected); empty for every other case. Compare
// Request.Host with its host to tell the listeners' requests apart.
func (f *Fake) SecondURL() string {
	if len(f.urls) < 2 {
		return ""
	}
	return f.urls[1]
}

// MaxConcurrent is the peak number of ordinary POSTs in progress at once, as
// the fake saw them: from arrival until the fake finished answering (an SSE
// answer counts until its stream ends). Ordinary POSTs are all POSTs but
// notifications/cancelled and client responses (RM-01, RM-02).
func (f *Fake) MaxConcurrent() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ordinary.peak
}

// MaxSSEStreams is the peak number of ordinary POSTs answered with an SSE
// stream that were still open at once (sse-early: more than the client's
// max_concurrent_requests is fine, RM-01).
func (f *Fake) MaxSSEStreams() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.streams.peak
}

// Close stops the listeners, closes every connection (so a request still
// held sees its connection drop, not an answer), unblocks every waiting
// handler and waits for them to return. It is safe to call more than once.
func (f *Fake) Close() error {
	f.closeOnce.Do(func() {
		f.mu.Lock()
		f.stopping.Store(true)
		f.mu.Unlock()
		var errs []error
		for _, srv := range f.servers {
			if err := srv.Close(); err != nil {
				errs = append(errs, err)
			}
		}
		f.cancel()
		f.serving.Wait()
		f.handlers.Wait()
		if err := errors.Join(errs...); err != nil {
			f.closeErr = fmt.Errorf("close http fake %s: %w", f.o.Case, err)
		}
	})
	return f.closeErr
}

// listener serves one listener of a fake: index 0 is URL, 1 SecondURL.
type listener struct {
	f     *Fake
	index int
}

// ServeHTTP is the base loop every request goes through: it records the
// request, answers it through the base handlers and the case's hooks, and
// records the outcome.
func (l listener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f := l.f
	f.mu.Lock()
	if f.stopping.Load() {
		f.mu.Unlock()
		http.Error(w, "the fake server is closing", http.StatusServiceUnavailable)
		return
	}
	f.handlers.Add(1)
	f.mu.Unlock()
	defer f.handlers.Done()

	x := f.begin(w, r, l.index)
	defer f.finish(x)
	f.dispatch(x)
}
