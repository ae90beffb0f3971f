package sse

import (
	"bytes"
	"strings"
)

// heldValue is a field value of an event the reader has yet to return, or
// has just returned: where it lies in the read buffer while it lies there,
// and copied into a buffer of its own when the read buffer is refilled
// first, or when more is added to it.
type heldValue struct {
	inBuf bool
	ref   []byte   // the value, in the read buffer, when inBuf
	own   valueBuf // the value otherwise
}

// hold makes b, which lies in the read buffer, the value.
func (h *heldValue) hold(b []byte) {
	h.own.reset()
	h.inBuf, h.ref = true, b[:len(b):len(b)]
}

// spill copies the value out of the read buffer, which is about to be
// refilled or added to; the value may come to hold limit bytes.
func (h *heldValue) spill(limit int) {
	if h.inBuf {
		h.own.write(h.ref, limit)
		h.inBuf, h.ref = false, nil
	}
}

// take makes the value v's, and leaves v with what the value held.
func (h *heldValue) take(v *valueBuf) {
	h.inBuf, h.ref = false, nil
	h.own, *v = *v, h.own
}

// bytes returns the value in one piece.
func (h *heldValue) bytes() []byte {
	if h.inBuf {
		return h.ref
	}
	return h.own.bytes()
}

// text returns the value as a string.
func (h *heldValue) text() string {
	if h.inBuf {
		return string(h.ref)
	}
	return h.own.text()
}

// reset empties the value.
func (h *heldValue) reset() {
	h.inBuf, h.ref = false, nil
	h.own.reset()
}

// valueBuf holds a field value of up to the event limit. Past the read
// buffer's size it stops growing by doubling, which holds the old array and
// the new one at once, and adds chunks instead, so holding n bytes never
// costs much more than n.
type valueBuf struct {
	full [][]byte // chunks filled before cur
	cur  []byte
	n    int // bytes held in full and cur
}

// write appends b to a value that may come to hold limit bytes; no chunk is
// made bigger than what can still arrive.
func (v *valueBuf) write(b []byte, limit int) {
	for {
		k := min(len(b), cap(v.cur)-len(v.cur))
		v.cur = append(v.cur, b[:k]...)
		v.n += k
		if b = b[k:]; len(b) == 0 {
			return
		}
		v.more(len(b), limit-v.n)
	}
}

// more makes room for need more bytes of the room the limit leaves.
func (v *valueBuf) more(need, room int) {
	if cap(v.cur) < sseBufferSize {
		grown := make([]byte, len(v.cur), max(2*cap(v.cur), len(v.cur)+need))
		copy(grown, v.cur)
		v.cur = grown
		return
	}
	size := min(2*cap(v.cur), sseChunkSize)
	if room >= need {
		size = min(size, room)
	}
	v.full = append(v.full, v.cur)
	v.cur = make([]byte, 0, max(size, need))
}

// bytes returns the value in one piece. A value held in chunks is joined
// into one new array, which the value keeps in their place.
func (v *valueBuf) bytes() []byte {
	if len(v.full) > 0 {
		joined := make([]byte, 0, v.n)
		for _, c := range v.full {
			joined = append(joined, c...)
		}
		v.full, v.cur = nil, append(joined, v.cur...)
	}
	return v.cur[:v.n:v.n]
}

// has reports whether the value holds the byte c.
func (v *valueBuf) has(c byte) bool {
	for _, b := range v.full {
		if bytes.IndexByte(b, c) >= 0 {
			return true
		}
	}
	return bytes.IndexByte(v.cur, c) >= 0
}

// text returns the value as a string: one allocation, one copy.
func (v *valueBuf) text() string {
	if len(v.full) == 0 {
		return string(v.cur)
	}
	var s strings.Builder
	s.Grow(v.n)
	for _, c := range v.full {
		s.Write(c)
	}
	s.Write(v.cur)
	return s.String()
}

// reset empties the value, keeping a buffer no bigger than a read's.
func (v *valueBuf) reset() {
	if v.full != nil || cap(v.cur) > sseBufferSize {
		*v = valueBuf{}
		return
	}
	v.cur, v.n = v.cur[:0], 0
}
