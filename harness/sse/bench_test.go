package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"
)

// benchStream is 4 MiB of typical MCP events: a comment keep-alive now and
// then, ids, and JSON-RPC notifications of about 1 KiB, with CRLF breaks
// in every other event.

// clientEventLimit is the reference HTTP client's default event limit
// (httpclient.DefaultMaxSSEEventSize, RM-09).
const clientEventLimit = 16 << 20

func benchStream() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 4<<20; i++ {
		writeBenchEvent(&b, i, benchPayload)
	}
	return b.Bytes()
}

// benchPayload is the data of benchStream's events: a log notification of
// about 1 KiB.
var benchPayload = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + strings.Repeat("x", 950) + `"}}`

// writeBenchEvent writes the i-th event of a benchmark stream, with data as
// its one data line.
func writeBenchEvent(b *bytes.Buffer, i int, data string) {
	brk := "\n"
	if i%2 == 1 {
		brk = "\r\n"
	}
	if i%16 == 0 {
		b.WriteString(": keep-alive" + brk)
	}
	b.WriteString("id: " + strings.Repeat("7", i%5+1) + brk + "data: " + data + brk + brk)
}

// BenchmarkSSEReader measures the parser: Reader.NextBytes over
// benchStream, in MB/s of raw stream, with each event's fields left where
// the reader holds them, so what is timed is finding lines, fields and
// events and counting their size, not copying them out; compare
// BenchmarkSSERawBaseline, and BenchmarkSSEReaderNext for the string API.
func BenchmarkSSEReader(b *testing.B) {
	benchReader(b, benchStream(), false)
}

// BenchmarkSSEReaderNext is BenchmarkSSEReader through Next, which copies
// each event's data and id into strings of its own.
func BenchmarkSSEReaderNext(b *testing.B) {
	benchReader(b, benchStream(), true)
}

// BenchmarkSSEReaderAllocs reads streams of a thousand and of a hundred
// thousand small events with NextBytes and reports the allocations per
// event: what the reader allocates is its buffers, once, so the figure
// falls as the count grows and is 0 to two decimals at 100 000.
func BenchmarkSSEReaderAllocs(b *testing.B) {
	for _, events := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("events=%d", events), func(b *testing.B) {
			var s bytes.Buffer
			for i := range events {
				writeBenchEvent(&s, i, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if n := benchReader(b, s.Bytes(), false); n != events {
				b.Fatalf("read %d events of %d", n, events)
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N*events), "allocs/event")
		})
	}
}

// benchReader times reading stream to its end with NextBytes, or with Next
// when withNext, and returns how many events it holds. (The two calls are
// spelled out: through a func value the reader would escape to the heap,
// one allocation more than a caller pays.)
func benchReader(b *testing.B, stream []byte, withNext bool) int {
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		r := NewReader(bytes.NewReader(stream), clientEventLimit)
		for events = 0; ; events++ {
			var err error
			if withNext {
				_, err = r.Next()
			} else {
				_, err = r.NextBytes()
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
		}
	}
	return events
}

// BenchmarkSSERawBaseline reads the same bytes line by line through a
// bufio.Reader and does nothing with them: the floor an SSE parser is
// measured against.
func BenchmarkSSERawBaseline(b *testing.B) {
	stream := benchStream()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		r := bufio.NewReaderSize(bytes.NewReader(stream), sseBufferSize)
		for {
			if _, err := r.ReadSlice('\n'); err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

// hugeEvent is an SSE event of one data line: "data: " and then left bytes
// of 'x'. It is generated as it is read, never held.
type hugeEvent struct {
	left   int64
	header bool
}

func (h *hugeEvent) Read(p []byte) (int, error) {
	if !h.header {
		h.header = true
		return copy(p, "data: "), nil
	}
	if h.left <= 0 {
		return 0, io.EOF
	}
	n := int64(len(p))
	n = min(n, h.left)
	for i := range p[:n] {
		p[i] = 'x'
	}
	h.left -= n
	return int(n), nil
}

// BenchmarkSSEOversizePeakHeap rejects one 1 GiB event with the default
// 16 MiB limit and reports the peak heap in use meanwhile (RM-09: memory is
// bounded by the limit, not by the event) and how much of the event was
// read before the reader gave up.
func BenchmarkSSEOversizePeakHeap(b *testing.B) {
	const event = 1 << 30
	var peak uint64
	var read int
	for b.Loop() {
		runtime.GC()
		stop, sampled := make(chan struct{}), make(chan uint64)
		go samplePeakHeap(stop, sampled)
		src := &countingReader{r: &hugeEvent{left: event}}
		_, err := NewReader(src, clientEventLimit).Next()
		close(stop)
		peak = max(peak, <-sampled)
		if !errors.Is(err, ErrEventTooLarge) {
			b.Fatalf("error %v, want ErrEventTooLarge", err)
		}
		read = src.n
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(read)/(1<<20), "read-MiB")
}

// TestSSEOversizeMemoryIsBounded is the peak-heap benchmark's claim as a
// test: rejecting a 1 GiB event with a 16 MiB limit never holds much more
// than the limit (a quarter of it more at most: the read buffer and the
// last chunk of the data).
func TestSSEOversizeMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 16 MiB")
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	stop, sampled := make(chan struct{}), make(chan uint64)
	go samplePeakHeap(stop, sampled)
	_, err := NewReader(&hugeEvent{left: 1 << 30}, clientEventLimit).Next()
	close(stop)
	peak := <-sampled
	if !errors.Is(err, ErrEventTooLarge) {
		t.Fatalf("error %v, want ErrEventTooLarge", err)
	}
	grew := int64(peak) - int64(before.HeapInuse)
	if grew > clientEventLimit+clientEventLimit/4 {
		t.Fatalf("the heap grew by %.1f MiB while rejecting the event; the limit is 16 MiB, so at most 20 MiB may be held", float64(grew)/(1<<20))
	}
	t.Logf("the heap grew by at most %.1f MiB while rejecting a 1 GiB event with a 16 MiB limit", float64(grew)/(1<<20))
}

// samplePeakHeap samples HeapInuse until stop closes, then sends the peak.
func samplePeakHeap(stop <-chan struct{}, peak chan<- uint64) {
	var ms runtime.MemStats
	var top uint64
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		runtime.ReadMemStats(&ms)
		top = max(top, ms.HeapInuse)
		select {
		case <-stop:
			runtime.ReadMemStats(&ms)
			peak <- max(top, ms.HeapInuse)
			return
		case <-tick.C:
		}
	}
}
