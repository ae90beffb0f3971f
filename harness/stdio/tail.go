package stdio

import "sync"

// tail keeps the last max bytes written to it in a fixed ring, so the memory
// it holds never depends on how much the server writes (NG-05).
type tail struct {
	mu    sync.Mutex
	max   int
	ring  []byte // allocated at the first write, len max
	next  int    // where the next byte goes
	kept  int    // bytes held, at most max
	total int64  // bytes ever written
}

func newTail(max int) *tail { return &tail{max: max} }

// Write keeps the last bytes of p; it never fails.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	if t.max == 0 {
		return len(p), nil
	}
	if t.ring == nil {
		t.ring = make([]byte, t.max)
	}
	n := len(p)
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	for len(p) > 0 {
		c := copy(t.ring[t.next:], p)
		p = p[c:]
		t.next = (t.next + c) % t.max
		t.kept = min(t.kept+c, t.max)
	}
	return n, nil
}

// Bytes returns a copy of the kept bytes, oldest first.
func (t *tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]byte, 0, t.kept)
	start := (t.next - t.kept + t.max) % max(t.max, 1)
	if start+t.kept <= t.max {
		return append(out, t.ring[start:start+t.kept]...)
	}
	out = append(out, t.ring[start:]...)
	return append(out, t.ring[:t.next]...)
}

// Total is how many bytes were ever written.
func (t *tail) Total() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}
