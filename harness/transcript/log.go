package transcript

import (
	"fmt"
	"sync"
)

// Bounds of a Log: what one check keeps of its wire, whatever the peer
// sends.
const (
	// MaxLogEntries is how many entries a Log keeps; later ones are counted.
	MaxLogEntries = 2000
	// MaxLineBytes is the longest frame a Log keeps as written; a longer one
	// is kept as a note giving its direction and length.
	MaxLineBytes = 64 << 10
)

// Log is a transcript recorded as the wire is used, from any goroutine:
// the frames each side wrote and the recorder's notes, in the order they
// were seen, bounded by MaxLogEntries and MaxLineBytes.
type Log struct {
	mu      sync.Mutex
	entries []Entry
	dropped int
}

// Add appends one entry. A frame longer than MaxLineBytes becomes a note
// with its length; past MaxLogEntries entries are only counted.
func (l *Log) Add(dir, line string) {
	if dir != Note && len(line) > MaxLineBytes {
		dir, line = Note, fmt.Sprintf("%s frame of %d bytes, too long to record", dir, len(line))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) >= MaxLogEntries {
		l.dropped++
		return
	}
	l.entries = append(l.entries, Entry{Dir: dir, Line: line})
}

// Notef appends a note.
func (l *Log) Notef(format string, args ...any) { l.Add(Note, fmt.Sprintf(format, args...)) }

// Entries returns a copy of what was recorded, ending with a note of how
// many entries did not fit, if any.
func (l *Log) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]Entry(nil), l.entries...)
	if l.dropped > 0 {
		out = append(out, Entry{Dir: Note, Line: fmt.Sprintf("%d more entries not recorded", l.dropped)})
	}
	return out
}
