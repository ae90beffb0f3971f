package transcript

import (
	"fmt"
	"sync"
)

// Bounds of a Log: what one check keeps of its wire, whatever the peer
// sends.
const (
	// MaxLogEntries is how many entries a Log keeps: the first half and
	// the latest; those between are counted.
	MaxLogEntries = 2000
	// MaxLineBytes is the longest frame a Log keeps as written; a longer one
	// is kept as a note giving its direction and length.
	MaxLineBytes = 64 << 10
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

// Add appends one entry. A frame longer than MaxLineBytes becomes a note
// with its length; past MaxLogEntries entries the oldest after the first
// half are dropped and counted.
func (l *Log) Add(dir, line string) {
	if dir != Note && len(line) > MaxLineBytes {
		dir, line = Note, fmt.Sprintf("%s frame of %d bytes, too long to record", dir, len(line))
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
