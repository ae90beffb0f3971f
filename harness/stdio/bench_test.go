package stdio

import (
	"runtime"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// BenchmarkStderrFloodPeakHeap has the stderr-flood fake write 1 GiB to
// stderr before it reads its first request, and reports the peak heap in use
// while the client drains it and gets the initialize reply (NG-05: memory
// stays bounded by MaxStderrBytes, not by the flood).
func BenchmarkStderrFloodPeakHeap(b *testing.B) {
	const flood = 1 << 30
	fake := stdiofake.Options{Case: "stderr-flood", Bytes: flood, When: "before", Marker: "flood"}
	cfg, _ := testConfig(selfexec.Command("fakeserver", fake.Args()...)...)
	initialize, _ := jsonrpc.NewRequest(jsonrpc.IntID(1), "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
	var peak uint64
	start := time.Now()
	for b.Loop() {
		c, err := Start(cfg)
		if err != nil {
			b.Fatal(err)
		}
		stop := make(chan struct{})
		sampled := make(chan uint64)
		go samplePeakHeap(stop, sampled)
		if err := c.Send(initialize); err != nil {
			b.Fatal(err)
		}
		select {
		case m := <-c.Incoming():
			if m == nil || m.Kind() != jsonrpc.KindResult {
				b.Fatalf("got %v; session: %v", m, c.Err())
			}
		case <-time.After(time.Minute):
			b.Fatal("the flood did not drain within a minute")
		}
		close(stop)
		peak = max(peak, <-sampled)
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		if c.tail.Total() < flood {
			b.Fatalf("drained %d bytes, want %d", c.tail.Total(), flood)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(flood)*float64(b.N)/(1<<20)/time.Since(start).Seconds(), "stderr-MiB/s")
}

// samplePeakHeap samples HeapInuse every few milliseconds until stop closes,
// then sends the peak.
func samplePeakHeap(stop <-chan struct{}, peak chan<- uint64) {
	var ms runtime.MemStats
	var top uint64
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		runtime.ReadMemStats(&ms)
		top = max(top, ms.HeapInuse)
		select {
		case <-stop:
			peak <- top
			return
		case <-tick.C:
		}
	}
}
