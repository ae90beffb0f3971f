package httpclient

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/harness/mcpclient"
)

// BenchmarkConcurrencyPeak runs 1000 concurrent tool calls through the
// reference client with max_concurrent_requests 16 against the slow-calls
// fake, and reports the peak number of ordinary POSTs the fake saw in
// progress at once (RM-01: it must be exactly 16) and the calls per second.
func BenchmarkConcurrencyPeak(b *testing.B) {
	const calls, limit = 1000, 16
	for b.Loop() {
		fake, err := httpfake.Start(httpfake.Options{Case: "slow-calls", Tools: 1, Delay: 5 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		cfg := DefaultConfig(fake.URL())
		cfg.MaxConcurrentRequests = limit
		cfg.OpenGETStream = false
		client, err := Dial(cfg)
		if err != nil {
			b.Fatal(err)
		}
		session, err := mcpclient.Connect(context.Background(), client, mcpclient.Options{CallTimeout: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, calls)
		for range calls {
			wg.Go(func() {
				if _, err := session.CallTool(context.Background(), "t1", map[string]any{}); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		_ = session.Close()
		_ = fake.Close()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		if peak := fake.MaxConcurrent(); peak != limit {
			b.Fatalf("peak %d POSTs in progress, want exactly %d", peak, limit)
		}
		b.ReportMetric(float64(fake.MaxConcurrent()), "peak-posts")
		b.ReportMetric(float64(calls)/elapsed.Seconds(), "calls/s")
	}
}
