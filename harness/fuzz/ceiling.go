package fuzz

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// PingCeiling measures the raw ceiling the fuzzer is compared with: for
// d, each of workers connections to the target, once initialized, sends a
// ping, waits for its answer and sends the next, with no generation,
// judging or shrinking.
// Stats.Executions counts the round trips. Every answer must come within
// opt.Timeout (zero: DefaultTimeout); one that does not ends the
// measurement with an error.
func PingCeiling(ctx context.Context, t Target, d time.Duration, workers int, opt ExecOptions) (Stats, error) {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	workers = max(workers, 1)
	conns := make([]conn, 0, workers)
	defer func() {
		for _, c := range conns {
			c.close(timeout)
		}
	}()
	for range workers {
		c, err := t.open(nil)
		if err != nil {
			return Stats{}, fmt.Errorf("the server did not start: %w", err)
		}
		conns = append(conns, c)
		// Over HTTP a ping outside a session is refused (400), so every
		// connection first opens one, over stdio too for the same
		// measure.
		if err := newRun(c, t.Transport(), opt).initialize(); err != nil {
			return Stats{}, err
		}
	}
	var pings atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	start := time.Now()
	deadline := start.Add(d)
	for w, c := range conns {
		wg.Go(func() { errs[w] = pingLoop(ctx, c, deadline, timeout, &pings) })
	}
	wg.Wait()
	s := Stats{Iterations: int64(workers), Executions: pings.Load(), Elapsed: time.Since(start)}
	for _, err := range errs {
		if err != nil {
			return s, err
		}
	}
	return s, nil
}

// pingLoop sends pings on c one after the other until the deadline.
func pingLoop(ctx context.Context, c conn, deadline time.Time, timeout time.Duration, pings *atomic.Int64) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for id := 1; time.Now().Before(deadline) && ctx.Err() == nil; id++ {
		pid := jsonrpc.StringID(fmt.Sprintf("mcpconform-ceiling-%d", id))
		raw, _ := jsonrpc.EncodeCall(pid, "ping", nil)
		if _, err := c.send(Frame{Body: raw}); err != nil {
			return fmt.Errorf("ping %d could not be sent: %w", id, err)
		}
		timer.Reset(timeout)
		// Only the ping's own answer ends the round trip; a notification
		// the server sends meanwhile does not.
		for answered := false; !answered; {
			select {
			case m, ok := <-c.messages():
				if !ok {
					return fmt.Errorf("the server ended its output before answering ping %d", id)
				}
				answered = (m.Kind() == jsonrpc.KindResult || m.Kind() == jsonrpc.KindError) && m.ID.Key() == pid.Key()
			case <-timer.C:
				return fmt.Errorf("ping %d had no answer within %v", id, timeout)
			case <-ctx.Done():
				return nil
			}
		}
		pings.Add(1)
	}
	return nil
}
