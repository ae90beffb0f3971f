package httpfake

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// sseRead is what a test client made of an SSE stream. It is parsed byte by
// byte here, independently of the fake's layout code, and counted as RM-09
// counts: each non-comment line of an event plus one byte for its line break,
// whatever the break (CR, LF or CRLF); the blank line ending the event is not
// counted.
type sseRead struct {
	events   []sseReadEvent
	comments int            // comment lines anywhere
	breaks   map[string]int // line breaks seen, by kind: "\r\n", "\r", "\n"
}

// sseReadEvent is one dispatched event (it had at least one field line).
type sseReadEvent struct {
	id, retry string
	data      []string // the values of its data lines
	size      int      // raw size
}

// json returns the event's data lines joined with LF, as a client joins them.
func (e sseReadEvent) json() string { return strings.Join(e.data, "\n") }

func parseSSE(raw []byte) sseRead {
	out := sseRead{breaks: map[string]int{}}
	var ev sseReadEvent
	started := false
	var line []byte
	endLine := func() {
		switch {
		case len(line) == 0:
			if started {
				out.events = append(out.events, ev)
			}
			ev, started = sseReadEvent{}, false
		case line[0] == ':':
			out.comments++
		default:
			started = true
			ev.size += len(line) + 1
			name, value, _ := bytes.Cut(line, []byte{':'})
			value, _ = bytes.CutPrefix(value, []byte{' '})
			switch string(name) {
			case "id":
				ev.id = string(value)
			case "retry":
				ev.retry = string(value)
			case "data":
				ev.data = append(ev.data, string(value))
			}
		}
		line = line[:0]
	}
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '\r':
			if i+1 < len(raw) && raw[i+1] == '\n' {
				i++
				out.breaks["\r\n"]++
			} else {
				out.breaks["\r"]++
			}
			endLine()
		case '\n':
			out.breaks["\n"]++
			endLine()
		default:
			line = append(line, raw[i])
		}
	}
	return out
}

// readSSE reads resp's whole SSE body and parses it.
func readSSE(t *testing.T, resp *http.Response) sseRead {
	t.Helper()
	wantStatus(t, resp, http.StatusOK)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q; want text/event-stream", ct)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return parseSSE(raw)
}

// nextSSEEvent reads one LF-terminated event from a stream still open.
func nextSSEEvent(t *testing.T, br *bufio.Reader) sseReadEvent {
	t.Helper()
	var raw []byte
	for {
		line, err := br.ReadBytes('\n')
		raw = append(raw, line...)
		if err != nil {
			t.Fatalf("stream ended after %q: %v", raw, err)
		}
		if len(line) == 1 && len(bytes.TrimLeft(raw, "\n")) > 0 {
			break
		}
	}
	events := parseSSE(raw).events
	if len(events) != 1 {
		t.Fatalf("read %q: %d events; want 1", raw, len(events))
	}
	return events[0]
}

// eventMessage decodes an event's joined data as a message.
func eventMessage(t *testing.T, e sseReadEvent) *jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.Decode([]byte(e.json()))
	if err != nil {
		t.Fatalf("event %s data %.200q: %v", e.id, e.json(), err)
	}
	return m
}

// wantPriming checks a priming event (HT-28): an id, empty data, retry as given.
func wantPriming(t *testing.T, e sseReadEvent, retry string) {
	t.Helper()
	if e.id == "" || len(e.data) != 1 || e.data[0] != "" || e.retry != retry {
		t.Fatalf("first event %+v; want a priming event: an id, empty data, retry %q", e, retry)
	}
}

// smallestResultEvent is the raw size of sse-event's result event for call 1
// to echo with no padding: its second event id is ev-2.
var smallestResultEvent = len("id: ev-2\n") + len(`data: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok echo"}],"padding":""}}`+"\n")

func TestSSEEventExactSize(t *testing.T) {
	for _, size := range []int{smallestResultEvent, smallestResultEvent + 1, 1000, 70001} {
		f := startFake(t, Options{Case: "sse-event", SSEEventSize: size})
		c := newClient(t, f)
		c.initialize()
		got := readSSE(t, c.call(1, "echo"))
		if len(got.events) != 2 || got.comments != 0 || got.breaks["\n"] != 6 || len(got.breaks) != 1 {
			t.Fatalf("size %d: %d events, %d comments, breaks %v; want a priming and a result event, 6 LFs", size, len(got.events), got.comments, got.breaks)
		}
		wantPriming(t, got.events[0], "")
		ev := got.events[1]
		if ev.size != size || ev.id != "ev-2" || len(ev.data) != 1 {
			t.Errorf("size %d: result event id %q, %d data lines, raw size %d; want id ev-2, one data line, raw size %d", size, ev.id, len(ev.data), ev.size, size)
		}
		wantCallText(t, eventMessage(t, ev), jsonrpc.IntID(1), "ok echo")
		if size == smallestResultEvent && !strings.HasSuffix(ev.data[0], `"padding":""}}`) {
			t.Errorf("smallest event data %q; want an empty padding", ev.data[0])
		}

		// A client that reconnects after the event is recorded (and refused).
		resp := c.send(http.MethodGet, "", "Accept: text/event-stream", "Last-Event-ID: ev-1")
		wantStatus(t, resp, http.StatusMethodNotAllowed)
		if r := f.Requests()[3]; r.Method != http.MethodGet || r.Header.Get("Last-Event-ID") != "ev-1" {
			t.Errorf("record %+v; want the GET with Last-Event-ID ev-1", r)
		}
	}

	// One byte short of the smallest event: the fake says what size works.
	f := startFake(t, Options{Case: "sse-event", SSEEventSize: smallestResultEvent - 1})
	c := newClient(t, f)
	c.initialize()
	m := readJSONMessage(t, c.call(1, "echo"))
	if m.Error == nil || m.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(m.Error.Message, "use "+strconv.Itoa(smallestResultEvent)+" or more") {
		t.Errorf("too small an event answered %s %v; want error -32603 naming the smallest size", m.Kind(), m.Error)
	}
}

func TestSSEHuge(t *testing.T) {
	size := 1<<20 + 7
	f := startFake(t, Options{Case: "sse-huge", SSEEventSize: size})
	c := newClient(t, f)
	c.initialize()
	got := readSSE(t, c.call(1, "echo"))
	if len(got.events) != 3 {
		t.Fatalf("%d events; want priming, big notification, result", len(got.events))
	}
	wantPriming(t, got.events[0], "")
	big := got.events[1]
	if big.size != size {
		t.Errorf("big event raw size %d; want %d", big.size, size)
	}
	if m := eventMessage(t, big); m.Method != "notifications/message" {
		t.Errorf("big event is %s %q; want notifications/message", m.Kind(), m.Method)
	}
	wantCallText(t, eventMessage(t, got.events[2]), jsonrpc.IntID(1), "ok echo")
	if r := f.Requests()[2]; r.Aborted || r.Status != http.StatusOK {
		t.Errorf("record %+v; want the call answered in full", r)
	}
}

func TestSSEHugeStopsWhenClientLeaves(t *testing.T) {
	f := startFake(t, Options{Case: "sse-huge", SSEEventSize: 1 << 30})
	c := newClient(t, f)
	c.initialize()
	resp := c.call(1, "echo")
	wantStatus(t, resp, http.StatusOK)
	if n, err := io.CopyN(io.Discard, resp.Body, 1<<20); n != 1<<20 {
		t.Fatalf("read %d bytes of the huge event: %v", n, err)
	}
	resp.Body.Close()
	recs := wantRecords(t, f, "the huge call aborted", func(recs []Request) bool { return !recs[2].End.IsZero() })
	if !recs[2].Aborted {
		t.Errorf("record %+v; want Aborted", recs[2])
	}
}

// TestSSECRLFSplit reads the raw chunked response from a socket, so it sees
// that every CR and LF went out in its own flushed write (its own chunk).
func TestSSECRLFSplit(t *testing.T) {
	for _, size := range []int{0, 500} {
		f := startFake(t, Options{Case: "sse-crlf-split", SSEEventSize: size})
		c := newClient(t, f)
		c.initialize()
		chunks := rawChunks(t, f, c.session, string(fakeservers.Encode(callMessage(t, jsonrpc.IntID(1), "echo"))))
		var body []byte
		for _, ch := range chunks {
			if len(ch) > 1 && bytes.ContainsAny(ch, "\r\n") {
				t.Errorf("size %d: chunk %q holds a line break beside other bytes; want CR and LF each in its own write", size, ch)
			}
			body = append(body, ch...)
		}
		got := parseSSE(body)
		if got.breaks["\r\n"] != 6 || len(got.breaks) != 1 || len(got.events) != 2 {
			t.Fatalf("size %d: breaks %v, %d events in %q; want 6 CRLFs and 2 events", size, got.breaks, len(got.events), body)
		}
		wantPriming(t, got.events[0], "")
		wantCallText(t, eventMessage(t, got.events[1]), jsonrpc.IntID(1), "ok echo")
		if size > 0 && got.events[1].size != size {
			t.Errorf("result event raw size %d; want %d (CRLF counted as 1)", got.events[1].size, size)
		}
	}
}

func TestSSEComments(t *testing.T) {
	f := startFake(t, Options{Case: "sse-comments"})
	c := newClient(t, f)
	c.initialize()
	got := readSSE(t, c.call(7, "echo"))
	if got.comments != sseKeepAlives+1 || len(got.events) != 1 {
		t.Fatalf("%d comments, %d events; want %d comments and one event", got.comments, len(got.events), sseKeepAlives+1)
	}
	ev := got.events[0]
	if len(ev.data) != 3 || ev.id == "" || ev.data[1] != `"id":7,` {
		t.Fatalf("event %+v; want an id and three data lines, the second without a leading space", ev)
	}
	wantCallText(t, eventMessage(t, ev), jsonrpc.IntID(7), "ok echo")
	if _, err := jsonrpc.Decode([]byte(ev.data[0])); err == nil {
		t.Error("the first data line alone decodes; want only the joined lines to")
	}
}

func TestResume(t *testing.T) {
	f := startFake(t, Options{Case: "resume", RetryMS: 150})
	c := newClient(t, f)
	c.initialize()
	got := readSSE(t, c.call(1, "echo"))
	if len(got.events) != 1 {
		t.Fatalf("%d events before the drop; want only the priming event", len(got.events))
	}
	wantPriming(t, got.events[0], "150")
	last := got.events[0].id

	wantStatus(t, c.send(http.MethodGet, "", "Accept: text/event-stream"), http.StatusMethodNotAllowed)
	wantStatus(t, c.send(http.MethodGet, "", "Accept: text/event-stream", "Last-Event-ID: ev-99"), http.StatusBadRequest)
	resumed := readSSE(t, c.send(http.MethodGet, "", "Accept: text/event-stream", "Last-Event-ID: "+last))
	if len(resumed.events) != 1 {
		t.Fatalf("%d events on the resumed stream; want the result", len(resumed.events))
	}
	wantCallText(t, eventMessage(t, resumed.events[0]), jsonrpc.IntID(1), "ok echo")
	wantStatus(t, c.send(http.MethodGet, "", "Last-Event-ID: "+last), http.StatusBadRequest)

	recs := f.Requests()
	call, get := recs[2], recs[5]
	if call.End.IsZero() || call.Aborted || get.Header.Get("Last-Event-ID") != last || get.Start.Before(call.End) || get.Status != http.StatusOK {
		t.Errorf("call %+v, resuming GET %+v; want the GET after the dropped call, with Last-Event-ID %s", call, get, last)
	}
}

// rawChunks sends one POST over a raw connection and returns the payloads of
// the chunks of its chunked response, read straight off the socket.
func rawChunks(t *testing.T, f *Fake, session, body string) [][]byte {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimSuffix(strings.TrimPrefix(f.URL(), "http://"), mcp.EndpointPath), replyDeadline)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(replyDeadline)); err != nil {
		t.Fatal(err)
	}
	req := "POST /mcp HTTP/1.1\r\nHost: " + conn.RemoteAddr().String() + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\n" + mcp.HeaderSessionID + ": " + session + "\r\nConnection: close\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	tp := textproto.NewReader(bufio.NewReader(conn))
	status, err := tp.ReadLine()
	if err != nil || status != "HTTP/1.1 200 OK" {
		t.Fatalf("status line %q (%v); want HTTP/1.1 200 OK", status, err)
	}
	header, err := tp.ReadMIMEHeader()
	if err != nil || header.Get("Transfer-Encoding") != "chunked" || header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("headers %v (%v); want a chunked text/event-stream", header, err)
	}
	var chunks [][]byte
	for {
		sizeLine, err := tp.ReadLine()
		if err != nil {
			t.Fatalf("chunk size line: %v", err)
		}
		n, err := strconv.ParseInt(sizeLine, 16, 32)
		if err != nil {
			t.Fatalf("chunk size %q: %v", sizeLine, err)
		}
		if n == 0 {
			return chunks
		}
		chunk := make([]byte, n+2)
		if _, err := io.ReadFull(tp.R, chunk); err != nil || !bytes.HasSuffix(chunk, []byte("\r\n")) {
			t.Fatalf("chunk of %d bytes %q: %v", n, chunk, err)
		}
		chunks = append(chunks, chunk[:n])
	}
}
