package sse

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// chunkedReader is a reader that returns its chunks one Read at a time, so a test
// decides where reads split the stream.
type chunkedReader struct{ chunks []string }

func (c *chunkedReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	return n, nil
}

// readAll returns every event of the chunks and the error that ended them.
func sseReadAll(limit int, m mutant.Name, chunks ...string) ([]Event, error) {
	return readEvents(NewMutantReader(&chunkedReader{chunks: chunks}, limit, m))
}

// readEvents returns every event r reads and the error that ended them.
func readEvents(r *Reader) ([]Event, error) {
	var out []Event
	for {
		ev, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

// datas returns the Data of each event.
func datas(evs []Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Data
	}
	return out
}

// TestSSEFields: the WHATWG field rules: one optional space after the
// colon, multi-line data joined with "\n", id, event, retry in
// milliseconds, comments and unknown fields ignored, an event cut off by
// the end of the stream discarded.
func TestSSEFields(t *testing.T) {
	evs, err := sseReadAll(1<<20, "",
		"\xEF\xBB\xBF: a comment\n",
		"id: 7\nevent: message\ndata: first\ndata:second\ndata:  third\nretry: 250\nfoo: bar\n\n",
		"data\n\n",
		"id: 8\n\n",
		"retry: soon\ndata: x\n\n",
		"data: cut off\n")
	if !errors.Is(err, io.EOF) {
		t.Fatalf("error %v, want io.EOF", err)
	}
	want := []Event{
		{ID: "7", Type: "message", Data: "first\nsecond\n third", Retry: 250 * time.Millisecond, HasRetry: true},
		{Data: ""},
		{ID: "8"},
		{Data: "x"},
	}
	if !slices.Equal(evs, want) {
		t.Fatalf("events\n%+v\nwant\n%+v", evs, want)
	}
}

// TestSSELineBreaks: CR, LF and CRLF all end a line, also split across
// reads (RM-09).
func TestSSELineBreaks(t *testing.T) {
	for name, chunks := range map[string][]string{
		"LF":                  {"data: a\ndata: b\n\n"},
		"CR":                  {"data: a\rdata: b\r\r"},
		"CRLF":                {"data: a\r\ndata: b\r\n\r\n"},
		"CRLF split":          {"data: a\r", "\ndata: b\r", "\n\r", "\n"},
		"byte by byte":        strings.Split("data: a\r\ndata: b\r\n\r\n", ""),
		"CR then LF-only":     {"data: a\r", "data: b\n\n"},
		"mixed":               {"data: a\n", "data: b\r\r\n"},
		"line spanning reads": {"da", "ta: ", "a\nd", "ata: b", "\n", "\n"},
	} {
		evs, err := sseReadAll(100, "", chunks...)
		if !errors.Is(err, io.EOF) || !slices.Equal(datas(evs), []string{"a\nb"}) {
			t.Errorf("%s: events %q, error %v; want one event \"a\\nb\"", name, datas(evs), err)
		}
	}
}

// sizedEvent builds an event of exactly n raw bytes (n >= 15) out of data
// lines, ended by a blank line: non-comment line bytes plus one per break.
// The comment line before it does not count.
func sizedEvent(n int, brk string) string {
	var b strings.Builder
	b.WriteString(": comments never count, however long they are" + strings.Repeat(".", 3*n) + brk)
	b.WriteString("data: {}" + brk) // 9
	left := n - 9
	for left > 0 { // every line is at least "data:", 5 bytes
		line := left - 1
		if line > 40 {
			line = 40
			if left-41 < 6 {
				line = 30
			}
		}
		b.WriteString("data:" + strings.Repeat(" ", line-5) + brk)
		left -= line + 1
	}
	b.WriteString(brk)
	return b.String()
}

// TestSSESizeBoundary: RM-09 at the limit: exactly the limit passes, one
// byte more fails with ErrEventTooLarge, with LF, CRLF (one byte per
// break) and CRLF split across reads; SSELimitOffByOne rejects the exact
// size, NoSSELimit accepts anything, SSESplitCRLFTwice rejects the exact
// size when a CRLF is split.
func TestSSESizeBoundary(t *testing.T) {
	const limit = 200
	for _, brk := range []string{"\n", "\r\n", "\r"} {
		for _, tc := range []struct {
			m       mutant.Name
			size    int
			split   bool
			wantErr bool
		}{
			{"", limit, false, false},
			{"", limit + 1, false, true},
			{"", limit, true, false},
			{mutant.SSELimitOffByOne, limit, false, true},
			{mutant.SSELimitOffByOne, limit - 1, false, false},
			{mutant.NoSSELimit, 10 * limit, false, false},
			{mutant.SSESplitCRLFTwice, limit, false, false},
			{mutant.SSESplitCRLFTwice, limit, true, brk == "\r\n"},
		} {
			ev := sizedEvent(tc.size, brk)
			chunks := []string{ev}
			if tc.split {
				chunks = splitAfterEachCR(ev)
			}
			evs, err := sseReadAll(limit, tc.m, chunks...)
			got := errors.Is(err, ErrEventTooLarge)
			if got != tc.wantErr || (!got && (len(evs) != 1 || !errors.Is(err, io.EOF))) {
				t.Errorf("break %q, mutant %q, size %d, split %v: %d events, error %v; want rejected=%v",
					brk, tc.m, tc.size, tc.split, len(evs), err, tc.wantErr)
			}
		}
	}
}

// splitAfterEachCR cuts s into reads that each end with a CR.
func splitAfterEachCR(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '\r')
		if i < 0 {
			return append(out, s)
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
}

// TestSSESizeResetsPerEvent: the count starts again after each blank line,
// so many events of exactly the limit pass.
func TestSSESizeResetsPerEvent(t *testing.T) {
	ev := sizedEvent(50, "\n")
	evs, err := sseReadAll(50, "", strings.Repeat(ev, 20))
	if len(evs) != 20 || !errors.Is(err, io.EOF) {
		t.Fatalf("%d events, error %v; want 20 and EOF", len(evs), err)
	}
}

// TestSSECommentOnlyStream: a stream of nothing but comments (keep-alives,
// HT-29c) yields no event and never counts against the limit.
func TestSSECommentOnlyStream(t *testing.T) {
	evs, err := sseReadAll(10, "", ":"+strings.Repeat("k", 100_000)+"\n", ":\r\n:ping\r", ":x\n")
	if len(evs) != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("%d events, error %v; want none and EOF", len(evs), err)
	}
}

// TestSSEOversizeIsSticky: after ErrEventTooLarge the reader stays failed,
// and it stopped reading long before the event's end.
func TestSSEOversizeIsSticky(t *testing.T) {
	src := &countingReader{r: strings.NewReader("data: " + strings.Repeat("x", 10<<20) + "\n\ndata: next\n\n")}
	r := NewReader(src, 1000)
	if _, err := r.Next(); !errors.Is(err, ErrEventTooLarge) || !strings.Contains(err.Error(), "limit of 1000") {
		t.Fatalf("first Next: %v, want ErrEventTooLarge naming the limit", err)
	}
	if _, err := r.Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("second Next: %v, want ErrEventTooLarge again", err)
	}
	if src.n > 2*sseBufferSize {
		t.Fatalf("read %d bytes of a 10 MiB event with a 1000-byte limit", src.n)
	}
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestSSEReaderErrors: the source's error ends the stream once the buffer
// is spent; a source that never makes progress ends it too.
func TestSSEReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("data: a\n\n"), &failingReader{boom}), 100)
	if ev, err := r.Next(); err != nil || ev.Data != "a" {
		t.Fatalf("first event %+v, %v", ev, err)
	}
	if _, err := r.Next(); !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	if _, err := NewReader(stalledReader{}, 100).Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("stalledReader source: %v, want io.ErrNoProgress", err)
	}
}

type failingReader struct{ err error }

func (f *failingReader) Read([]byte) (int, error) { return 0, f.err }

type stalledReader struct{}

func (stalledReader) Read([]byte) (int, error) { return 0, nil }

// TestSSELargeValues: values longer than a read, and longer than a chunk
// of the reader's value buffer, come out whole and in order however the
// reads split them; the count still allows exactly the limit and rejects a
// byte more.
func TestSSELargeValues(t *testing.T) {
	text := func(n int, seed int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + (i*7+i/13+seed)%26)
		}
		return string(b)
	}
	lines := []string{
		"id: " + text(40<<10, 1),
		"event:" + text(sseBufferSize+3, 2),
		"data: " + text(sseChunkSize+sseChunkSize/2+7, 3),
		"data:" + text(sseBufferSize-1, 4),
		"data",
		"retry: " + strings.Repeat("0", 50<<10) + "25",
	}
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	event := strings.Join(lines, "\r\n") + "\r\n\r\n"
	stream := event + "data: next\n\n"
	for _, limit := range []int{size, size - 1} {
		want := sseModel([]byte(stream), limit)
		if fits := limit == size; fits != (len(want.events) == 2 && want.events[0].HasRetry) {
			t.Fatalf("limit %d: the model reads %d events; the stream was not built as meant", limit, len(want.events))
		}
		for name, src := range map[string]io.Reader{
			"one read":          strings.NewReader(stream),
			"up to 16 bytes":    &splitReader{data: []byte(stream), sizes: []byte{3, 15, 0, 8}},
			"reads of 100 KiB+": &chunkedReader{chunks: chunk(stream, 100<<10+1)},
		} {
			got, err := readEvents(NewReader(src, limit))
			if !sameEvents(got, want.events) || errors.Is(err, ErrEventTooLarge) != want.tooLarge {
				t.Errorf("limit %d (the event is %d), %s: %d events, error %v; want %d events, too large %v",
					limit, size, name, len(got), err, len(want.events), want.tooLarge)
			}
		}
	}
}

// chunk cuts s into pieces of n bytes, the last one shorter.
func chunk(s string, n int) []string {
	var out []string
	for len(s) > n {
		out, s = append(out, s[:n]), s[n:]
	}
	return append(out, s)
}

// TestSSENextBytes: NextBytes returns the events of the stream in the
// reader's own bytes: a data line whose event ends only after the buffer is
// refilled comes out whole, and appending to a returned field never reaches
// the bytes still to be read.
func TestSSENextBytes(t *testing.T) {
	r := NewReader(&chunkedReader{chunks: []string{
		"id: 1\ndata: first\n",
		"\nevent: e\ndata: a\r",
		"\ndata: b\r\n\r\ndata: c\n\ndata: last\n\n",
	}}, 100)
	var got []Event
	for {
		ev, err := r.NextBytes()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("NextBytes ended with %v, want io.EOF", err)
			}
			break
		}
		got = append(got, Event{ID: string(ev.ID), Type: string(ev.Type), Data: string(ev.Data), Retry: ev.Retry, HasRetry: ev.HasRetry})
		_ = append(ev.Data, "\n\ndata: spoiled\n\n"...)
		_ = append(ev.ID, "\n\n"...)
	}
	want := []Event{{ID: "1", Data: "first"}, {Type: "e", Data: "a\nb"}, {Data: "c"}, {Data: "last"}}
	if !slices.Equal(got, want) {
		t.Fatalf("events\n%+v\nwant\n%+v", got, want)
	}
}

// TestSSENextBytesAllocations: once its buffers have grown, NextBytes
// allocates nothing per event: reading ten times the events costs no more
// allocations.
func TestSSENextBytesAllocations(t *testing.T) {
	allocs := func(events int) float64 {
		stream := []byte(strings.Repeat("id: 7\r\nevent: message\ndata: {}\ndata: {}\n\n: ping\n\ndata: x\n\n", events/2))
		return testing.AllocsPerRun(5, func() {
			r := NewReader(strings.NewReader(string(stream)), 1000)
			for {
				if _, err := r.NextBytes(); err != nil {
					return
				}
			}
		})
	}
	if few, many := allocs(1000), allocs(10_000); many > few {
		t.Fatalf("reading 1000 events allocated %v times, 10 000 events %v times; want no more", few, many)
	}
}
