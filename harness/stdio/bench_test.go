package stdio

import (
	"runtime"
	"strconv"
	"testing"
	"time"
)

// BenchmarkStderrFloodPeakHeap floods 1 GiB to stderr before the server's
// first message and reports the peak heap in use while the client drains it
// (NG-05: memory stays bounded by MaxStderrBytes, not by the flood).
func BenchmarkStderrFloodPeakHeap(b *testing.B) {
	const flood = 1 << 30
	cfg, _ := testConfig(serverArgv("err:"+strconv.Itoa(flood), "out:"+q(msgLast), "waiteof")...)
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
		select {
		case m := <-c.Incoming():
			if m == nil || m.Method != "last" {
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
		if c.tail.Total() != flood {
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
