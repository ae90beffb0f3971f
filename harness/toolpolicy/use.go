package toolpolicy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Use is which of the server's tools a run called and which it left alone,
// as the reports show it (the JSON index's "tools"). A tool one check called
// is called, whatever another check left alone.
type Use struct {
	Called    []string    `json:"called"`
	LeftAlone []LeftAlone `json:"left_alone"`
	// FixturesFound are the tools that show a fixture role, as the run's
	// fixtures discovery found them (none when it ran no pass).
	FixturesFound []FoundFixture `json:"fixtures_found,omitempty"`
}

// FoundFixture is a tool that shows a fixture role (progress, logging,
// sampling, …), and how the run learnt it.
type FoundFixture struct {
	Role string `json:"role"`
	Tool string `json:"tool"`
	How  string `json:"how"`
}

// Summary is Use in one line: the console's and the Markdown's.
func (u Use) Summary() string {
	called := "none"
	if len(u.Called) > 0 {
		called = strings.Join(u.Called, ", ")
	}
	s := fmt.Sprintf("tools called: %s", called)
	if len(u.LeftAlone) > 0 {
		s += "; " + Explain(u.LeftAlone)
	}
	return s
}

// Recorder collects a run's Use; it is safe for concurrent use, and its
// zero value records nothing yet.
type Recorder struct {
	mu     sync.Mutex
	called map[string]bool
	left   map[string]string
}

// Called records that a check called the tool name.
func (r *Recorder) Called(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.called == nil {
		r.called = map[string]bool{}
	}
	r.called[name] = true
}

// LeftAlone records that the policy kept a check from calling name, and
// why; of two whys for one name the first in sort order stays, so that the
// record does not depend on which check ran first.
func (r *Recorder) LeftAlone(name, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.left == nil {
		r.left = map[string]string{}
	}
	if old, ok := r.left[name]; !ok || why < old {
		r.left[name] = why
	}
}

// Add records another process's Use (a worker's of a parallel run).
func (r *Recorder) Add(u Use) {
	for _, name := range u.Called {
		r.Called(name)
	}
	for _, l := range u.LeftAlone {
		r.LeftAlone(l.Name, l.Why)
	}
}

// Use is what was recorded: the tools called, and the tools left alone that
// no check called, each sorted by name.
func (r *Recorder) Use() Use {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := Use{Called: slices.Sorted(maps.Keys(r.called)), LeftAlone: []LeftAlone{}}
	if u.Called == nil {
		u.Called = []string{}
	}
	for _, name := range slices.Sorted(maps.Keys(r.left)) {
		if !r.called[name] {
			u.LeftAlone = append(u.LeftAlone, LeftAlone{Name: name, Why: r.left[name]})
		}
	}
	return u
}

// Reset forgets what was recorded (a new run in the same process).
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.called, r.left = nil, nil
}
