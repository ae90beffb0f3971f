package run

import (
	"sync"

	"github.com/mcpconform/mcpconform/harness/transcript"
)

var (
	logsMu sync.Mutex
	logs   = map[*C]*transcript.Log{}
)

// Log returns the check's live transcript: what the check's connections
// add to it, from any goroutine, becomes the check's transcript when it
// ends (after the cleanups registered later, so a connection's teardown is
// in it). A server check's frames interleave with the server's by
// scheduling, and its own are the harness's, not the implementation's: the
// transcript is evidence for the report, never a snapshot.
func (c *C) Log() *transcript.Log {
	logsMu.Lock()
	defer logsMu.Unlock()
	if l := logs[c]; l != nil {
		return l
	}
	l := &transcript.Log{}
	logs[c] = l
	c.Unordered()
	c.Cleanup(func() {
		c.SetTranscript(l.Entries())
		logsMu.Lock()
		delete(logs, c)
		logsMu.Unlock()
	})
	return l
}
