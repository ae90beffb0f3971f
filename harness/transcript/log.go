package transcript

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Bounds of a Log: what one check keeps of its wire, whatever the peer
// sends.
const (
	// MaxLogEntries is how many entries a Log keeps: the first half and
	// the latest; those between are counted.
	MaxLogEntries = 2000
	// MaxLineBytes is the longest frame a Log keeps, once its strings are
	// clipped; a longer one is kept as a note giving its direction, its
	// length and its first ExcerptBytes.
	MaxLineBytes = 64 << 10
	// MaxStringBytes is the longest JSON string a frame keeps: a longer one
	// (a tool's result, a resource's text, a dump of an environment) keeps
	// its first MaxStringBytes bytes and says how many it lost, "… (N
	// bytes cut)", so that the frame is still the same JSON and a report
	// holds no megabyte of it.
	MaxStringBytes = 1 << 10
	// ExcerptBytes is how much of a text a transcript or a message shows
	// where it cannot show it all: a frame that is not JSON, one too long
	// to keep, a reply quoted in a check's message.
	ExcerptBytes = 200
)

// Log is a transcript recorded as the wire is used, from any goroutine:
// the frames each side wrote and the recorder's notes, in the order they
// were seen, bounded by MaxLogEntries and MaxLineBytes. Past the bound it
// keeps the first half and the latest entries, so a failure's tail is
// where the check ended.
type Log struct {
	mu      sync.Mutex
	head    []Entry
	tail    []Entry // a ring of the latest entries once head is full
	next    int     // where the ring writes next
	dropped int
}

// Add appends one entry. A frame's JSON strings longer than
// MaxStringBytes are clipped, and a frame still longer than MaxLineBytes
// becomes a note with its length and its start (tooLong); past
// MaxLogEntries entries the oldest after the first half are dropped and
// counted.
func (l *Log) Add(dir, line string) {
	if dir != Note {
		if line = clipStrings(line); len(line) > MaxLineBytes {
			dir, line = Note, tooLong(dir+" frame", line, len(line))
		}
	}
	e := Entry{Dir: dir, Line: line}
	l.mu.Lock()
	defer l.mu.Unlock()
	const keepHead, keepTail = MaxLogEntries / 2, MaxLogEntries - MaxLogEntries/2
	switch {
	case len(l.head) < keepHead:
		l.head = append(l.head, e)
	case len(l.tail) < keepTail:
		l.tail = append(l.tail, e)
	default:
		l.tail[l.next] = e
		l.next = (l.next + 1) % keepTail
		l.dropped++
	}
}

// Notef appends a note.
func (l *Log) Notef(format string, args ...any) { l.Add(Note, fmt.Sprintf(format, args...)) }

// Entries returns a copy of what was recorded, with a note of how many
// entries were dropped between the first half and the latest ones.
func (l *Log) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]Entry(nil), l.head...)
	if l.dropped > 0 {
		out = append(out, Entry{Dir: Note, Line: fmt.Sprintf("%d entries not recorded", l.dropped)})
	}
	out = append(out, l.tail[l.next:]...)
	return append(out, l.tail[:l.next]...)
}

// tooLong is the note that stands for a frame of total bytes the log does
// not keep: what names it and an excerpt of its start.
func tooLong(what, start string, total int) string {
	return fmt.Sprintf("%s of %d bytes, too long to record; it begins: %s", what, total, excerpt(start, total))
}

// clipStrings returns line with every JSON string longer than
// MaxStringBytes cut to its first MaxStringBytes bytes or fewer (an escape
// or a character is not split) followed by "… (N bytes cut)". A line that
// does not open a JSON object or array is returned as it is.
func clipStrings(line string) string {
	trimmed := strings.TrimLeft(line, " \t\r\n")
	if len(line) <= MaxStringBytes || trimmed == "" || (trimmed[0] != '{' && trimmed[0] != '[') {
		return line
	}
	var b strings.Builder
	written, start, inString := 0, 0, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case !inString:
			if c == '"' {
				inString, start = true, i+1
			}
		case c == '\\':
			i++
		case c == '"':
			inString = false
			if i-start > MaxStringBytes {
				keep := stringCut(line[start:i], MaxStringBytes)
				b.WriteString(line[written:start+keep] + cutNote(i-start-keep))
				written = i
			}
		}
	}
	if written == 0 {
		return line
	}
	b.WriteString(line[written:])
	return b.String()
}

// stringCut is where the content of a JSON string is cut to keep at most
// max bytes: after a whole escape sequence or character.
func stringCut(content string, max int) int {
	at := 0
	for at < len(content) {
		_, n := utf8.DecodeRuneInString(content[at:])
		if content[at] == '\\' {
			n = 2
			if at+1 < len(content) && content[at+1] == 'u' {
				n = 6
			}
		}
		if at+n > max {
			return at
		}
		at += n
	}
	return at
}
