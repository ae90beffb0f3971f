package sse

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// This file is self-contained (standard library and package code only) so
// that OSS-Fuzz's native Go build, which compiles it without the package's
// other test files, can build it as it is.

// FuzzSSEReader reads arbitrary bytes as an event stream under a small limit
// and holds the reader to a model written from the rules it documents
// (WHATWG "Interpreting an event stream" plus RM-09's raw-size count), not
// from its code: the same events and the same ending, whether the bytes
// arrive in one read, one byte at a time or split where the fuzzer says,
// and whether they are read with Next or NextBytes.
func FuzzSSEReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, stream []byte, limitSeed uint16, splits []byte) {
		limit := int(limitSeed % 600)
		want := sseModel(stream, limit)
		readers := []struct {
			name string
			src  io.Reader
			next func(*Reader) (Event, error)
		}{
			{"one read", bytes.NewReader(stream), (*Reader).Next},
			{"one byte a read", &splitReader{data: stream, sizes: []byte{0}}, (*Reader).Next},
			{"fuzzed splits", &splitReader{data: stream, sizes: splits}, (*Reader).Next},
			{"one read, NextBytes", bytes.NewReader(stream), nextCopied},
			{"fuzzed splits, NextBytes", &splitReader{data: stream, sizes: splits}, nextCopied},
		}
		for _, rd := range readers {
			got, err := sseReadBounded(t, rd.src, rd.next, limit, len(stream))
			if !sameEvents(got, want.events) {
				t.Fatalf("%s, limit %d, stream %q:\n got events %#v\nwant events %#v", rd.name, limit, stream, got, want.events)
			}
			switch {
			case want.tooLarge && !errors.Is(err, ErrEventTooLarge):
				t.Fatalf("%s, limit %d, stream %q: ended with %v, want ErrEventTooLarge", rd.name, limit, stream, err)
			case !want.tooLarge && err != io.EOF:
				t.Fatalf("%s, limit %d, stream %q: ended with %v, want io.EOF", rd.name, limit, stream, err)
			}
		}
	})
}

// nextCopied reads an event with NextBytes and copies it out as an Event.
func nextCopied(r *Reader) (Event, error) {
	ev, err := r.NextBytes()
	if err != nil {
		return Event{}, err
	}
	return Event{ID: string(ev.ID), Type: string(ev.Type), Data: string(ev.Data), Retry: ev.Retry, HasRetry: ev.HasRetry}, nil
}

// sseReadBounded reads events with next until an error, failing the test if
// the reader returns more events than the stream can hold (each needs a
// field line and a blank line, two bytes at least), breaks an event's
// bounds, or does not repeat its final error.
func sseReadBounded(t *testing.T, src io.Reader, next func(*Reader) (Event, error), limit, streamLen int) ([]Event, error) {
	t.Helper()
	r := NewReader(src, limit)
	var got []Event
	for {
		ev, err := next(r)
		if err != nil {
			if _, again := next(r); again != err && !(errors.Is(err, ErrEventTooLarge) && errors.Is(again, ErrEventTooLarge)) {
				t.Fatalf("Next ended with %v, then returned %v", err, again)
			}
			return got, err
		}
		if len(ev.Data) > limit {
			t.Fatalf("event data of %d bytes under a limit of %d: %q", len(ev.Data), limit, ev.Data)
		}
		if strings.ContainsRune(ev.Data, '\r') || strings.ContainsAny(ev.ID+ev.Type, "\r\n") {
			t.Fatalf("a line break survived inside a field: %#v", ev)
		}
		if got = append(got, ev); len(got) > streamLen/2 {
			t.Fatalf("%d events from %d bytes: the reader does not make progress", len(got), streamLen)
		}
	}
}

// splitReader hands out data in reads whose sizes cycle through sizes
// (each taken modulo 16, plus one), so a CR and its LF, a BOM or a line
// at the limit can be cut anywhere.
type splitReader struct {
	data  []byte
	sizes []byte
	i     int
}

func (s *splitReader) Read(p []byte) (int, error) {
	if len(s.data) == 0 {
		return 0, io.EOF
	}
	size := 7
	if len(s.sizes) > 0 {
		size = int(s.sizes[s.i%len(s.sizes)]%16) + 1
		s.i++
	}
	n := copy(p[:min(len(p), size)], s.data)
	s.data = s.data[n:]
	return n, nil
}

// sseOutcome is what the model expects of a stream.
type sseOutcome struct {
	events   []Event
	tooLarge bool
}

// sseModel reads the whole stream by the rules: a BOM at the start is
// skipped; CRLF, CR and LF each end a line; a line starting with ':' is a
// comment; a blank line dispatches the event when it had a field line; every
// other line counts its bytes plus one for its break towards the event's raw
// size, and an event whose raw size passes the limit fails the stream, as does an
// unfinished last line that could not fit; an event cut off by the end of
// the stream is discarded.
func sseModel(stream []byte, limit int) sseOutcome {
	s := string(bytes.TrimPrefix(stream, []byte("\xEF\xBB\xBF")))
	var out sseOutcome
	var ev Event
	var data []string
	size, fields := 0, false
	for s != "" {
		end := strings.IndexAny(s, "\r\n")
		if end < 0 {
			out.tooLarge = s[0] != ':' && size+len(s)+1 > limit
			return out
		}
		line := s[:end]
		if strings.HasPrefix(s[end:], "\r\n") {
			s = s[end+2:]
		} else {
			s = s[end+1:]
		}
		switch {
		case strings.HasPrefix(line, ":"):
		case line == "":
			if fields {
				ev.Data = strings.Join(data, "\n")
				out.events = append(out.events, ev)
			}
			ev, data, size, fields = Event{}, nil, 0, false
		default:
			if size += len(line) + 1; size > limit {
				out.tooLarge = true
				return out
			}
			fields = true
			data = sseModelField(&ev, line, data)
		}
	}
	return out
}

// sseModelField applies one field line: the name runs to the first colon,
// one space after it is dropped, unknown names are ignored, an id holding
// NUL is ignored, a retry must be ASCII digits that fit a time.Duration.
func sseModelField(ev *Event, line string, data []string) []string {
	name, value, _ := strings.Cut(line, ":")
	value = strings.TrimPrefix(value, " ")
	switch name {
	case "data":
		return append(data, value)
	case "event":
		ev.Type = value
	case "id":
		if !strings.Contains(value, "\x00") {
			ev.ID = value
		}
	case "retry":
		if ms, err := strconv.ParseUint(value, 10, 63); err == nil &&
			ms <= uint64(time.Duration(1<<63-1)/time.Millisecond) {
			ev.Retry, ev.HasRetry = time.Duration(ms)*time.Millisecond, true
		}
	}
	return data
}

func sameEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
