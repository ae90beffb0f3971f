package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/suites/run"
)

func init() {
	selfexec.Register("client", func(args []string) int { return certify(args, os.Stdout, os.Stderr) })
	selfexec.Register("server", func(args []string) int { return certifyServer(args, os.Stdout, os.Stderr) })
}

// Kill matrix written by selftest --json; field names are a public contract.
type killMatrix struct {
	Checks            []checkKills  `json:"checks"`
	Mutants           []mutantKills `json:"mutants"`
	Unkilled          []string      `json:"unkilled"`
	ReferenceFailures []string      `json:"reference_failures"`
	// Unused are mutants no check names; they were not run.
	Unused []string `json:"unused,omitempty"`
}

type checkKills struct {
	ID       string   `json:"id"`
	KilledBy []string `json:"killed_by"`
}

type mutantKills struct {
	Name   string   `json:"name"`
	Killed []string `json:"killed"`
	// Survived are target checks the mutant should have failed but passed.
	Survived []string `json:"survived,omitempty"`
	// Collateral are checks outside its targets that it failed (--matrix only).
	Collateral []string `json:"collateral,omitempty"`
}

func selftest(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("selftest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonPath := fs.String("json", "", "write the kill matrix as JSON to `FILE`")
	matrix := fs.Bool("matrix", false, "run every mutant against every check (slow), proving nothing else changes")
	parallel := fs.Int("parallel", 3, "mutant runs at once")
	seed := fs.Int64("seed", 1, "seed of the property checks")
	verbose := fs.Bool("v", false, "print each run's command")
	if err := fs.Parse(args); err != nil {
		return exitFor(err, stderr)
	}
	if fs.NArg() > 0 || *parallel < 1 {
		return exitFor(fmt.Errorf("selftest: unexpected argument %q or --parallel below 1; usage: mcpconform selftest [--json F] [--matrix]", strings.Join(fs.Args(), " ")), stderr)
	}
	dir, err := os.MkdirTemp("", "mcpconform-selftest-")
	if err != nil {
		return exitFor(err, stderr)
	}
	defer os.RemoveAll(dir)

	// The first two jobs are the references; then one job per mutant.
	jobs := []job{{role: check.Client}, {role: check.Server}}
	for _, role := range []check.Role{check.Client, check.Server} {
		for _, m := range mutant.ForRole(string(role)) {
			jobs = append(jobs, job{role: role, name: m.Name, targets: check.KilledBy(string(m.Name))})
		}
	}
	results := make([]map[string]check.Outcome, len(jobs))
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, *parallel)
	var wg sync.WaitGroup
	for i, j := range jobs {
		if j.name != "" && len(j.targets) == 0 && !*matrix {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			only := j.targets
			if j.name == "" || *matrix {
				only = nil
			}
			results[i], errs[i] = runMutant(dir, j, only, *seed, *verbose, stderr)
			label := string(j.name)
			if label == "" {
				label = "reference " + string(j.role)
			}
			fmt.Fprintf(stdout, "selftest: %-30s done\n", label)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return exitFor(fmt.Errorf("selftest: run of %q: %w", jobs[i].name, err), stderr)
		}
	}

	km := killMatrix{Unkilled: []string{}, ReferenceFailures: []string{}}
	killedBy := map[string][]string{}
	const references = 2
	for _, ref := range results[:references] {
		for id, o := range ref {
			if o != check.Pass && o != check.Info {
				km.ReferenceFailures = append(km.ReferenceFailures, id+" ("+string(o)+")")
			}
		}
	}
	for i, j := range jobs[references:] {
		res := results[i+references]
		if res == nil {
			km.Unused = append(km.Unused, string(j.name))
			continue
		}
		mk := mutantKills{Name: string(j.name), Killed: []string{}}
		for id, o := range res {
			if !o.Killed() {
				continue
			}
			mk.Killed = append(mk.Killed, id)
			killedBy[id] = append(killedBy[id], string(j.name))
			if !slices.Contains(j.targets, id) {
				mk.Collateral = append(mk.Collateral, id)
			}
		}
		for _, id := range j.targets {
			if !res[id].Killed() {
				mk.Survived = append(mk.Survived, id)
			}
		}
		sort.Strings(mk.Killed)
		sort.Strings(mk.Collateral)
		km.Mutants = append(km.Mutants, mk)
	}
	for _, d := range check.All() {
		ks := killedBy[d.ID]
		sort.Strings(ks)
		if ks == nil {
			ks = []string{}
			km.Unkilled = append(km.Unkilled, d.ID)
		}
		km.Checks = append(km.Checks, checkKills{ID: d.ID, KilledBy: ks})
	}
	sort.Strings(km.ReferenceFailures)
	if *jsonPath != "" {
		b, err := json.MarshalIndent(km, "", "  ")
		if err == nil {
			err = report.WriteFileAtomic(*jsonPath, append(b, '\n'))
		}
		if err != nil {
			return exitFor(err, stderr)
		}
	}
	return printKillMatrix(stdout, km)
}

// job is one run of the self-test: a reference (name "") or a mutant of
// the reference client or server, against the checks of its role.
type job struct {
	role    check.Role
	name    mutant.Name
	targets []string
}

// runMutant runs `mcpconform client` or `mcpconform server` in a child
// process against the reference (or its mutant), and returns each check's
// outcome. A mutant server is served from this process.
func runMutant(dir string, j job, only []string, seed int64, verbose bool, stderr io.Writer) (map[string]check.Outcome, error) {
	name := string(j.name)
	if name == "" {
		name = "reference-" + string(j.role)
	}
	out := filepath.Join(dir, name+".json")
	args := []string{"--json", out, "--no-color", "--seed", fmt.Sprint(seed)}
	if len(only) > 0 {
		args = append(args, "--only", strings.Join(only, ","))
	}
	switch {
	case j.role == check.Server && j.name != "":
		url, stop, err := serve.Start(run.ReferenceServer(j.name))
		if err != nil {
			return nil, err
		}
		defer stop()
		args = append(args, "--url", url, "--")
		args = append(args, run.ReferenceServerCommand(j.name)...)
	case j.role == check.Client && j.name != "":
		args = append(args, "--")
		args = append(args, run.ReferenceAdapter(j.name)...)
	}
	argv := selfexec.Command(string(j.role), args...)
	if verbose {
		fmt.Fprintln(stderr, "selftest:", strings.Join(argv, " "))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	log, _ := os.Create(filepath.Join(dir, name+".log"))
	if log != nil {
		defer log.Close()
		cmd.Stdout, cmd.Stderr = log, log
	}
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 1 {
		return nil, fmt.Errorf("exit status %d (%v); see its log by rerunning with -v", code, err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	var ix report.Index
	if err := json.Unmarshal(b, &ix); err != nil {
		return nil, err
	}
	res := map[string]check.Outcome{}
	for _, c := range ix.Checks {
		if c.Outcome != check.Skipped {
			res[c.ID] = c.Outcome
		}
	}
	return res, nil
}

func printKillMatrix(w io.Writer, km killMatrix) int {
	fmt.Fprintln(w, "\nmutant                         killed  checks")
	bad := len(km.Unkilled) > 0 || len(km.ReferenceFailures) > 0
	for _, m := range km.Mutants {
		status := "killed"
		if len(m.Survived) > 0 || len(m.Killed) == 0 {
			status, bad = "SURVIVED", true
		}
		fmt.Fprintf(w, "%-30s %-7s %s\n", m.Name, status, strings.Join(m.Killed, ", "))
		if len(m.Survived) > 0 {
			fmt.Fprintf(w, "%-30s         survived: %s\n", "", strings.Join(m.Survived, ", "))
		}
		if len(m.Collateral) > 0 {
			fmt.Fprintf(w, "%-30s         also failed: %s\n", "", strings.Join(m.Collateral, ", "))
		}
	}
	fmt.Fprintf(w, "\n%d checks, %d mutants run; unkilled checks: %d; reference failures: %d\n",
		len(km.Checks), len(km.Mutants), len(km.Unkilled), len(km.ReferenceFailures))
	if len(km.Unused) > 0 {
		fmt.Fprintf(w, "not run (no check names them yet): %s\n", strings.Join(km.Unused, ", "))
	}
	for _, id := range km.Unkilled {
		fmt.Fprintln(w, "  unkilled:", id)
	}
	for _, id := range km.ReferenceFailures {
		fmt.Fprintln(w, "  reference failure:", id)
	}
	if bad {
		return 1
	}
	return 0
}
