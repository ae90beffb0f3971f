package workflows

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// ciJobs are the jobs issue 24 splits the project's CI into, each within its
// own time limit.
var ciJobs = []string{"tests", "self-test", "peers", "official"}

// maxJobMinutes bounds every job's timeout-minutes: a job that needs more is
// one to split again.
const maxJobMinutes = 30

type ciJob struct {
	TimeoutMinutes int `yaml:"timeout-minutes"`
	Steps          []struct {
		Run              string `yaml:"run"`
		WorkingDirectory string `yaml:"working-directory"`
	} `yaml:"steps"`
}

// TestCIJobs holds .github/workflows/ci.yml to its split: the named jobs,
// each with a time limit of its own, and every peer, suite and self-test that
// .ci/run runs run by some job.
func TestCIJobs(t *testing.T) {
	var ci struct {
		Jobs map[string]ciJob `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(readFile(t, ".github/workflows/ci.yml"), &ci); err != nil {
		t.Fatal(err)
	}
	for _, name := range ciJobs {
		if _, ok := ci.Jobs[name]; !ok {
			t.Errorf("ci.yml: no job %q", name)
		}
	}
	// runs holds every step's script, after the directory it runs in.
	var runs []string
	for name, job := range ci.Jobs {
		if job.TimeoutMinutes <= 0 || job.TimeoutMinutes > maxJobMinutes {
			t.Errorf("ci.yml: job %q has timeout-minutes %d, want 1 to %d", name, job.TimeoutMinutes, maxJobMinutes)
		}
		for _, s := range job.Steps {
			runs = append(runs, "in "+cmp.Or(s.WorkingDirectory, ".")+": "+s.Run)
		}
	}
	ran := func(what string) bool {
		return slices.ContainsFunc(runs, func(r string) bool { return strings.Contains(r, what) })
	}
	want := []string{"go test -race ./...", "selftest --json", "selftest --repeat", "bash peers/official/run.sh", "bash peers/official/run-client.sh",
		"go run ./cmd/mcpconform --junit", "in browser: go vet ./... && go test ./..."}
	certify, err := filepath.Glob(filepath.Join(root, "peers", "*", "certify.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range certify {
		want = append(want, "bash peers/"+filepath.Base(filepath.Dir(f))+"/certify.sh")
	}
	// The server peers' own go test: modules of their own.
	tests, err := filepath.Glob(filepath.Join(root, "peers", "*", "conformance_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tests {
		want = append(want, "in peers/"+filepath.Base(filepath.Dir(f))+": go vet ./... && go test ./...")
	}
	if len(certify) == 0 || len(tests) == 0 {
		t.Fatalf("found %d peers/*/certify.sh and %d peers/*/conformance_test.go: want some of each", len(certify), len(tests))
	}
	for _, w := range want {
		if !ran(w) {
			t.Errorf("ci.yml: no job runs %q (.ci/run does)", w)
		}
	}
}
