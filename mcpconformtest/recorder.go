package mcpconformtest

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Recorder is a TB that records what Server and Client make of each check
// instead of failing a test: for a program or a test that judges the
// outcomes itself. Record makes one.
type Recorder struct {
	name     string
	mu       sync.Mutex
	failed   bool
	skipped  bool
	logs     []string
	subtests []*Recorder
	cleanups []func()
}

// Record runs f with a Recorder named name as go test runs a test (in a
// goroutine of its own, which Fatalf and Skipf end), runs its cleanups,
// and returns it.
func Record(name string, f func(r *Recorder)) *Recorder {
	r := &Recorder{name: name}
	r.run(f)
	return r
}

func (r *Recorder) run(f func(*Recorder)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer r.runCleanups()
		f(r)
	}()
	<-done
}

func (r *Recorder) runCleanups() {
	r.mu.Lock()
	cs := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for _, c := range slices.Backward(cs) {
		c()
	}
}

// Name is the test's name; a subtest's is its parent's, a slash and its own.
func (r *Recorder) Name() string { return r.name }

// Helper does nothing: a Recorder reports no source lines.
func (r *Recorder) Helper() {}

// Deadline is none: a Recorder's run has the budget its options give.
func (r *Recorder) Deadline() (time.Time, bool) { return time.Time{}, false }

// TempDir is a new directory, removed with the Recorder's cleanups.
func (r *Recorder) TempDir() string {
	dir, err := os.MkdirTemp("", "mcpconformtest-")
	if err != nil {
		r.Fatalf("TempDir: %v", err)
	}
	r.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// Cleanup registers f to run when the test (or subtest) ends, last first.
func (r *Recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// Logf records a line.
func (r *Recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// Errorf records a line and marks the test failed.
func (r *Recorder) Errorf(format string, args ...any) {
	r.Logf(format, args...)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}

// Fatalf is Errorf, then the end of the test's goroutine.
func (r *Recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// Skipf records a line, marks the test skipped and ends its goroutine.
func (r *Recorder) Skipf(format string, args ...any) {
	r.Logf(format, args...)
	r.mu.Lock()
	r.skipped = true
	r.mu.Unlock()
	runtime.Goexit()
}

// Run runs f as a subtest named name and reports whether it passed; a
// failed subtest fails its parent.
func (r *Recorder) Run(name string, f func(*Recorder)) bool {
	s := &Recorder{name: r.name + "/" + name}
	r.mu.Lock()
	r.subtests = append(r.subtests, s)
	r.mu.Unlock()
	s.run(f)
	if s.Failed() {
		r.mu.Lock()
		r.failed = true
		r.mu.Unlock()
	}
	return !s.Failed()
}

// Failed says whether the test, or a subtest, failed.
func (r *Recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// Skipped says whether the test was skipped.
func (r *Recorder) Skipped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped
}

// Logs are the lines logged, in order, failures' and skips' included.
func (r *Recorder) Logs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.logs)
}

// Subtests are the subtests run, in order: one per check.
func (r *Recorder) Subtests() []*Recorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.subtests)
}

// Status is PASS, FAIL or SKIP, as go test -v prints a test's end.
func (r *Recorder) Status() string {
	switch {
	case r.Failed():
		return "FAIL"
	case r.Skipped():
		return "SKIP"
	}
	return "PASS"
}
