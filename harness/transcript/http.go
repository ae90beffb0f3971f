package transcript

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/harness/mcp"
)

// recordedHeaders are the request and response headers an HTTP transcript
// shows, in this order: what the streamable HTTP rules judge. Every other
// header (cookies among them) is left out; Authorization is shown only as
// present, and last, since Redact masks a header to the end of its line.
var recordedHeaders = []string{"Content-Type", mcp.HeaderProtocolVersion, mcp.HeaderSessionID, mcp.HeaderMethod, mcp.HeaderName,
	"Origin", mcp.HeaderLastEventID, "Allow", "WWW-Authenticate"}

// HTTPRecorder is an http.RoundTripper that records every exchange in Log:
// a note with the method, path and headers that matter, the request body
// (c2s), a note with the status and headers of the reply, and the reply's
// body (s2c): a JSON body as one frame, an SSE body event by event as it is
// read (a note for an event's id and retry fields). Authorization values
// and the values of the URL's query never reach the log.
type HTTPRecorder struct {
	// Next carries the requests; nil means http.DefaultTransport.
	Next http.RoundTripper
	Log  *Log
}

// RoundTrip records req, sends it, and records the reply as it is read.
func (h *HTTPRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	next := h.Next
	if next == nil {
		next = http.DefaultTransport
	}
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	line := req.Method + " " + requestTarget(req.URL)
	if req.Host != "" && req.Host != req.URL.Host {
		line += " Host: " + req.Host
	}
	h.Log.Add(Note, line+headerText(req.Header, true))
	if len(body) > 0 {
		h.Log.Add(ClientToServer, string(bytes.TrimSpace(body)))
	}
	resp, err := next.RoundTrip(req)
	if err != nil {
		h.Log.Notef("%s %s got no answer: %v", req.Method, req.URL.Path, err)
		return nil, err
	}
	h.Log.Add(Note, fmt.Sprintf("answered %d%s", resp.StatusCode, headerText(resp.Header, false)))
	sse := strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), mcp.ContentTypeSSE)
	resp.Body = &recordedBody{ReadCloser: resp.Body, log: h.Log, sse: sse}
	return resp, nil
}

// requestTarget is the path and query of u as the transcript shows them:
// the query's values masked (RedactQuery), since a URL may carry a token.
func requestTarget(u *url.URL) string {
	target := u.EscapedPath()
	if target == "" {
		target = "/"
	}
	if u.RawQuery != "" {
		target += "?" + RedactQuery(u.RawQuery)
	}
	return target
}

// headerText renders the recorded headers present in hdr: "; Name: value"
// each, Authorization (of a request) last and masked.
func headerText(hdr http.Header, request bool) string {
	var b strings.Builder
	for _, name := range recordedHeaders {
		if v := hdr.Values(name); len(v) > 0 {
			fmt.Fprintf(&b, "; %s: %s", name, strings.Join(v, ", "))
		}
	}
	if request && hdr.Get("Authorization") != "" {
		b.WriteString("; Authorization: " + Redacted)
	}
	return b.String()
}

// recordedBody records a reply body as its reader consumes it.
type recordedBody struct {
	io.ReadCloser
	log  *Log
	sse  bool
	once sync.Once

	mu      sync.Mutex
	buf     []byte // JSON: the body so far; SSE: the unfinished line
	skipped int    // JSON: bytes past MaxLineBytes
	// overlong (SSE) drops the rest of a line too long for the log, up to
	// its line break, so its tail is not read as a line of its own.
	overlong bool
	event    sseFields
}

// sseFields are the fields of the SSE event being read.
type sseFields struct {
	data             []string
	id, retry, event string
	hasID, any       bool
}

func (r *recordedBody) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	r.mu.Lock()
	if r.sse {
		r.feedSSE(p[:n])
	} else if room := MaxLineBytes + 1 - len(r.buf); room > 0 {
		r.buf = append(r.buf, p[:min(n, room)]...)
		r.skipped += n - min(n, room)
	} else {
		r.skipped += n
	}
	r.mu.Unlock()
	if err == io.EOF {
		r.finish("")
	} else if err != nil {
		r.finish(err.Error())
	}
	return n, err
}

func (r *recordedBody) Close() error {
	r.finish("")
	return r.ReadCloser.Close()
}

// finish records what the body held, once: a JSON body as one frame, the
// end of an SSE stream as a note.
func (r *recordedBody) finish(readErr string) {
	r.once.Do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.sse {
			r.dispatch()
			if readErr != "" {
				r.log.Notef("SSE stream ended: %s", readErr)
			} else {
				r.log.Notef("SSE stream ended")
			}
			return
		}
		switch body := bytes.TrimSpace(r.buf); {
		case r.skipped > 0:
			r.log.Add(Note, tooLong(ServerToClient+" body", string(r.buf), len(r.buf)+r.skipped))
		case len(body) > 0:
			r.log.Add(ServerToClient, string(body))
		}
	})
}

// feedSSE splits what was read into lines and their fields.
func (r *recordedBody) feedSSE(p []byte) {
	r.buf = append(r.buf, p...)
	for {
		i := bytes.IndexByte(r.buf, '\n')
		if i < 0 {
			if len(r.buf) > MaxLineBytes {
				// A line too long for the log: drop it up to its line
				// break; its event still ends at a blank line.
				r.buf, r.overlong = r.buf[:0], true
			}
			return
		}
		line := strings.TrimSuffix(string(r.buf[:i]), "\r")
		r.buf = r.buf[i+1:]
		if r.overlong {
			r.overlong = false
			r.log.Notef("SSE line too long to record")
			continue
		}
		r.sseLine(line)
	}
}

func (r *recordedBody) sseLine(line string) {
	if line == "" {
		r.dispatch()
		return
	}
	if strings.HasPrefix(line, ":") {
		return
	}
	name, value, _ := strings.Cut(line, ":")
	value = strings.TrimPrefix(value, " ")
	e := &r.event
	e.any = true
	switch name {
	case "data":
		e.data = append(e.data, value)
	case "id":
		e.id, e.hasID = value, true
	case "retry":
		e.retry = value
	case "event":
		e.event = value
	}
}

// dispatch records the event read so far: a note for its fields other
// than data, then its data as a frame.
func (r *recordedBody) dispatch() {
	e := r.event
	r.event = sseFields{}
	if !e.any {
		return
	}
	var fields []string
	if e.hasID {
		fields = append(fields, fmt.Sprintf("id %q", e.id))
	}
	if e.event != "" {
		fields = append(fields, fmt.Sprintf("event %q", e.event))
	}
	if e.retry != "" {
		fields = append(fields, fmt.Sprintf("retry %s", e.retry))
	}
	data := strings.Join(e.data, "\n")
	switch {
	case data == "" && len(fields) == 0:
		return
	case data == "":
		r.log.Notef("SSE event without data (%s)", strings.Join(fields, ", "))
		return
	case len(fields) > 0:
		r.log.Notef("SSE event (%s)", strings.Join(fields, ", "))
	}
	r.log.Add(ServerToClient, data)
}
