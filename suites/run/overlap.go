package run

import (
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/harness/check"
)

// Server checks overlap: up to Config.Parallel of them run at once, each on
// connections of its own, so that the quiet window or the slow tool call of
// one elapses while the others work. Ginkgo still runs the specs one after
// another: a spec whose check a worker has started waits for its result,
// and a spec whose check no worker has reached yet runs it itself. Workers
// take the checks with the longest declared waits first. Checks that start
// stdio server processes run at most as many at once as there are CPUs, so
// that no server is judged slow for the harness's own load. Client checks,
// which judge the timing of the client's own processes, run alone: each
// waits for the server checks in flight, and none starts until it is done.
// A run that selects specs by Ginkgo's focus or skip flags (only the label
// filter is read ahead) runs every check one after another.

// keptBody is a registered check, kept so that a worker can run it.
type keptBody struct {
	d    check.Descriptor
	body func(*C)
}

var (
	bodiesMu sync.Mutex
	bodies   []keptBody // in registration order
)

func keepBody(d check.Descriptor, body func(*C)) {
	bodiesMu.Lock()
	defer bodiesMu.Unlock()
	bodies = append(bodies, keptBody{d, body})
}

// task is one check run ahead by a worker, or by its spec.
type task struct {
	keptBody
	claimed atomic.Bool
	done    chan struct{}
	res     check.Result
}

// run evaluates the check unless another goroutine claimed it first.
func (t *task) run(processes chan struct{}) {
	if !t.claimed.CompareAndSwap(false, true) {
		return
	}
	alone.RLock()
	defer alone.RUnlock()
	if startsProcesses(Current(), t.d) {
		processes <- struct{}{}
		defer func() { <-processes }()
	}
	t.res = evaluate(t.d, t.body)
	close(t.done)
}

// startsProcesses reports whether the check starts stdio server processes.
func startsProcesses(cfg Config, d check.Descriptor) bool {
	return d.Transport == check.Stdio || d.Transport == check.Any && len(cfg.ServerCommand) > 0
}

// alone is held for reading by each overlapping check as it runs and for
// writing by a check that must run alone.
var alone sync.RWMutex

var overlap struct {
	mu        sync.Mutex
	start     *sync.Once
	tasks     map[string]*task
	processes chan struct{} // one token per check that starts processes
}

func resetOverlap() {
	overlap.mu.Lock()
	defer overlap.mu.Unlock()
	overlap.start, overlap.tasks = &sync.Once{}, nil
}

// overlapped returns the result of the check: run by a worker, or here.
// The first spec of a run starts the workers.
func overlapped(d check.Descriptor, body func(*C)) check.Result {
	overlap.mu.Lock()
	if overlap.start == nil {
		overlap.start = &sync.Once{}
	}
	start := overlap.start
	overlap.mu.Unlock()
	start.Do(startWorkers)
	overlap.mu.Lock()
	t, pooled, processes := overlap.tasks[d.ID], overlap.tasks != nil, overlap.processes
	overlap.mu.Unlock()
	switch {
	case t != nil:
		t.run(processes)
		<-t.done
		return t.res
	case pooled:
		alone.Lock()
		defer alone.Unlock()
	}
	return evaluate(d, body)
}

// startWorkers queues the server checks the run's label filter selects and
// starts Parallel-1 workers on them (the spec being run is the last one).
func startWorkers() {
	cfg := Current()
	suite, _ := ginkgo.GinkgoConfiguration()
	if cfg.Parallel < 2 || len(suite.FocusStrings)+len(suite.SkipStrings)+len(suite.FocusFiles)+len(suite.SkipFiles) > 0 {
		return
	}
	selected, err := types.ParseLabelFilter(suite.LabelFilter)
	if err != nil {
		return // Ginkgo reports it
	}
	bodiesMu.Lock()
	var queue []*task
	for _, b := range bodies {
		if b.d.Role == check.Server && selected(b.d.Labels()) {
			queue = append(queue, &task{keptBody: b, done: make(chan struct{})})
		}
	}
	bodiesMu.Unlock()
	sort.SliceStable(queue, func(i, j int) bool { return declaredWaits(cfg, queue[i].d) > declaredWaits(cfg, queue[j].d) })
	tasks := map[string]*task{}
	next := make(chan *task, len(queue))
	for _, t := range queue {
		tasks[t.d.ID] = t
		next <- t
	}
	close(next)
	processes := make(chan struct{}, max(1, runtime.NumCPU()))
	overlap.mu.Lock()
	overlap.tasks, overlap.processes = tasks, processes
	overlap.mu.Unlock()
	for range cfg.Parallel - 1 {
		go func() {
			for t := range next {
				t.run(processes)
			}
		}()
	}
}

// declaredWaits is the time the check's declared waits take at least once.
func declaredWaits(cfg Config, d check.Descriptor) time.Duration {
	var sum time.Duration
	for _, w := range d.Waits {
		sum += cfg.WaitDuration(w.Setting)
	}
	return sum
}
