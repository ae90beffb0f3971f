// Package selftest proves the checks: it certifies the reference client
// and server, which must pass everything, and each mutant and permitted
// variant of them, which the checks naming it must fail (mutants) or leave
// passing under the spec profile (variants); it runs the fuzzer against
// the reference server's planted bugs, and certifies the reference again
// and again under load for rerun stability. Every certification is a
// child process of this executable running its client or server command
// (package certify). Command mcpconform selftest parses the flags, prints
// the kill matrix and sets the exit status.
package selftest

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/reaper"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Kill matrix written by selftest --json; field names are a public contract.
type KillMatrix struct {
	Checks            []CheckKills  `json:"checks"`
	Mutants           []MutantKills `json:"mutants"`
	Unkilled          []string      `json:"unkilled"`
	ReferenceFailures []string      `json:"reference_failures"`
	// Variants are the permitted variants: what the spec profile made of
	// each, and whether the checks naming it killed it under hardened.
	Variants []VariantResult `json:"variants"`
	// Unused are mutants no check names; they were not run.
	Unused []string `json:"unused,omitempty"`
	// Fuzz is the fuzzer's kill matrix: each planted bug of the reference
	// server and the invariant the fuzzer found broken, and the reference
	// itself over each transport, where it finds nothing.
	Fuzz []FuzzKill `json:"fuzz"`
}

type CheckKills struct {
	ID       string   `json:"id"`
	KilledBy []string `json:"killed_by"`
}

type MutantKills struct {
	Name   string   `json:"name"`
	Killed []string `json:"killed"`
	// Survived are target checks the mutant should have failed but passed.
	Survived []string `json:"survived,omitempty"`
	// Collateral are checks outside its targets that it failed (--matrix only).
	Collateral []string `json:"collateral,omitempty"`
}

// VariantResult is one permitted variant's certificate: under the spec
// profile no check of its role and transport may fail it; under the
// hardened profile every check naming it must kill it.
type VariantResult struct {
	Name        string   `json:"name"`
	Role        string   `json:"role"`
	PermittedBy []string `json:"permitted_by"`
	Spec        struct {
		Outcomes map[string]check.Outcome `json:"outcomes"`
		Fail     []string                 `json:"fail"`
	} `json:"spec"`
	Hardened struct {
		Killed   []string `json:"killed"`
		Survived []string `json:"survived"`
	} `json:"hardened"`
}

// Options are a self-test's settings: the flags of mcpconform selftest.
type Options struct {
	// Matrix runs every mutant against every check (slow), proving
	// nothing else changes.
	Matrix bool
	// Parallel is how many mutant runs go at once (at least one).
	Parallel int
	// Seed is the seed of the property checks and of the fuzzer.
	Seed int64
	// Fuzz also runs the fuzzer's kill matrix.
	Fuzz bool
	// Mutants, when set, is a glob: only the mutants and variants it
	// matches run, and the references on the checks that name them.
	Mutants string
	// Progress receives a line as each run ends; Verbose writes each
	// run's command to Log. Nil writers discard.
	Progress io.Writer
	Verbose  bool
	Log      io.Writer
}

// Run runs the self-test: the references, every mutant and every
// permitted variant in child processes of this executable (its client and
// server commands, package certify), then the fuzzer's kill matrix, and
// returns the kill matrix. An error is the harness's: a run that could not
// be made, never a surviving mutant.
func Run(ctx context.Context, o Options) (KillMatrix, error) {
	o.Parallel = max(o.Parallel, 1)
	o.Progress, o.Log = cmp.Or[io.Writer](o.Progress, io.Discard), cmp.Or[io.Writer](o.Log, io.Discard)
	dir, err := os.MkdirTemp("", "mcpconform-selftest-")
	if err != nil {
		return KillMatrix{}, err
	}
	defer os.RemoveAll(dir)

	jobs := selftestJobs(o.Matrix)
	if o.Mutants != "" {
		if jobs, err = narrowJobs(jobs, o.Mutants); err != nil {
			return KillMatrix{}, err
		}
	}
	results, err := runJobs(dir, jobs, o.Parallel, o.Seed, o.Verbose, o.Progress, o.Log)
	if err != nil {
		return KillMatrix{}, err
	}
	km := tally(jobs, results)
	if o.Mutants != "" {
		km = km.narrowed(jobs)
	}
	// After the check runs, not beside them: the fuzzer loads the CPU, and
	// some client checks time what the client does.
	km.Fuzz = []FuzzKill{}
	if o.Fuzz {
		if km.Fuzz, err = fuzzMatrix(ctx, o.Seed, o.Progress); err != nil {
			return KillMatrix{}, err
		}
	}
	return km, nil
}

// selftestJobs lists the runs: the two references, one per mutant on the
// checks that name it (every check with matrix), and two per permitted
// variant: the spec profile on the checks of its role and transport, and
// the hardened profile on the checks that name it. The references and
// the mutants run under the hardened profile, so hardened checks kill
// their mutants.
func selftestJobs(matrix bool) []job {
	jobs := []job{{role: check.Client, profile: check.HardenedProfile}, {role: check.Server, profile: check.HardenedProfile},
		{role: check.Server, profile: check.HardenedProfile, auth: true, only: AuthChecks()}}
	for _, role := range []check.Role{check.Client, check.Server} {
		for _, m := range mutant.ForRole(string(role)) {
			j := job{role: role, name: m.Name, profile: check.HardenedProfile, targets: check.KilledBy(m.Name), auth: mutant.OfServerAuth(m.Name)}
			j.only, j.skip = j.targets, len(j.targets) == 0
			if matrix {
				j.only, j.skip = nil, false
			}
			jobs = append(jobs, j)
		}
	}
	for _, v := range mutant.Variants() {
		role := check.Role(v.Role)
		jobs = append(jobs, job{role: role, name: v.Name, profile: check.SpecProfile, variant: true, only: checksOf(role, v.Transport), httpOnly: v.Role == "server" && v.Transport == "http"})
		targets := check.KilledBy(v.Name)
		jobs = append(jobs, job{role: role, name: v.Name, profile: check.HardenedProfile, variant: true, targets: targets, only: targets, skip: len(targets) == 0})
	}
	// The big runs, first in the list, spread their checks over workers;
	// the many small ones run their few checks side by side too, since a
	// mutant's check waits out its bound (the patience, the deadline)
	// rather than the CPU.
	for i := range jobs {
		jobs[i].parallel = min(len(jobs[i].only), smallJobParallel)
		if jobs[i].big() {
			jobs[i].parallel = bigJobParallel
		}
	}
	slices.SortStableFunc(jobs, func(a, b job) int { return cmp.Compare(b.size(), a.size()) })
	return jobs
}

// narrowJobs keeps the mutant and variant jobs whose name matches glob,
// and the reference jobs of their roles narrowed to the checks that name
// them (selftest --mutants).
func narrowJobs(jobs []job, glob string) ([]job, error) {
	if _, err := path.Match(glob, ""); err != nil {
		return nil, fmt.Errorf("selftest: --mutants %q: %v; give a glob such as auth-*", glob, err)
	}
	targets := map[check.Role][]string{}
	var kept []job
	for _, j := range jobs {
		if ok, _ := path.Match(glob, string(j.name)); ok && j.name != "" {
			kept = append(kept, j)
			targets[j.role] = append(targets[j.role], j.targets...)
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("selftest: --mutants %q matches no mutant or variant; mcpconform list mutants names them", glob)
	}
	for _, j := range jobs {
		if j.name != "" || len(targets[j.role]) == 0 {
			continue
		}
		var only []string
		for _, id := range targets[j.role] {
			if !slices.Contains(only, id) && (len(j.only) == 0 || slices.Contains(j.only, id)) {
				only = append(only, id)
			}
		}
		if len(only) > 0 {
			j.only, j.parallel = only, min(len(only), smallJobParallel)
			kept = append(kept, j)
		}
	}
	return kept, nil
}

// bigJobParallel is the --parallel of a self-test run of many checks, and
// smallJobParallel the most of a run of a few.
const (
	bigJobParallel   = 2
	smallJobParallel = 3
)

// selftestServerDeadline is the self-test's --timeout for its server
// runs: the longest a server's own reverse timeout may be
// (server.reverse.times-out waits it and --patience) and any one HTTP
// exchange. The reference's own reverse timeout is a second
// (run.ReferenceServer), so a mutant without one is told within nine
// seconds, not the default's thirty-five.
const selftestServerDeadline = 5 * time.Second

// selftestPatience is the self-test's --patience: the reference answers
// within milliseconds, and a mutant that never answers is told in four
// seconds, not the default's five. It is the least that stays twice the
// prompt (run.MinPatience), so a check still tells a call failed at once
// from one failed at its timeout.
const selftestPatience = 2 * run.DefaultPrompt

// AuthChecks returns the IDs of the checks of the server as a protected
// resource (http.server.auth.*), which the open reference server leaves
// N/A and the protected one must pass.
func AuthChecks() []string {
	var ids []string
	for _, d := range check.All() {
		if strings.HasPrefix(d.ID, authCheckPrefix) {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// authCheckPrefix starts the IDs of the auth checks of the server.
const authCheckPrefix = "http.server.auth."

// checksOf returns the IDs of the checks of role on transport ("any": all
// of the role's).
func checksOf(role check.Role, transport string) []string {
	var ids []string
	for _, d := range check.All() {
		if d.Role == role && (transport == "any" || d.Transport == check.Any || string(d.Transport) == transport) {
			ids = append(ids, d.ID)
		}
	}
	return ids
}

// runJobs runs the jobs, parallel at a time; a skipped job has no result.
func runJobs(dir string, jobs []job, parallel int, seed int64, verbose bool, stdout, stderr io.Writer) ([]map[string]check.Outcome, error) {
	results := make([]map[string]check.Outcome, len(jobs))
	errs := make([]error, len(jobs))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, j := range jobs {
		if j.skip {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			results[i], errs[i] = runMutant(dir, j, seed, verbose, stderr)
			fmt.Fprintf(stdout, "selftest: %-40s done in %.1fs\n", j.label(), time.Since(start).Seconds())
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("selftest: run of %s: %w", jobs[i].label(), err)
		}
	}
	return results, nil
}

// tally turns the runs' outcomes into the kill matrix. A check counts as
// killed by a variant that the hardened profile kills on it. A check N/A
// to the reference (the dual-era ones: the reference client opens in the
// legacy era) is no reference failure when a permitted variant passes it
// under spec: that one shows it can pass.
func tally(jobs []job, results []map[string]check.Outcome) KillMatrix {
	km := KillMatrix{Unkilled: []string{}, ReferenceFailures: []string{}, Variants: []VariantResult{}}
	killedBy := map[string][]string{}
	variants := map[mutant.Name]*VariantResult{}
	var notApplicable []string // to the reference: proven by a variant or another reference, or a failure
	referencePassed := map[string]bool{}
	for i, j := range jobs {
		res := results[i]
		switch {
		case j.name == "":
			for id, o := range res {
				switch o {
				case check.Pass, check.Info:
					referencePassed[id] = true
				case check.NotApplicable:
					notApplicable = append(notApplicable, id)
				default:
					km.ReferenceFailures = append(km.ReferenceFailures, id+" ("+string(o)+")")
				}
			}
		case j.variant:
			vr := variants[j.name]
			if vr == nil {
				v, _ := mutant.LookupVariant(j.name)
				vr = &VariantResult{Name: string(v.Name), Role: v.Role, PermittedBy: v.PermittedBy}
				vr.Spec.Outcomes, vr.Spec.Fail = map[string]check.Outcome{}, []string{}
				vr.Hardened.Killed, vr.Hardened.Survived = []string{}, []string{}
				variants[j.name] = vr
			}
			if j.profile == check.SpecProfile {
				vr.Spec.Outcomes = res
				vr.Spec.Fail = failing(res)
				continue
			}
			mk := kills(j, res)
			vr.Hardened.Killed, vr.Hardened.Survived = mk.Killed, orEmpty(mk.Survived)
			for _, id := range mk.Killed {
				killedBy[id] = append(killedBy[id], string(j.name))
			}
		case res == nil:
			km.Unused = append(km.Unused, string(j.name))
		default:
			mk := kills(j, res)
			for _, id := range mk.Killed {
				killedBy[id] = append(killedBy[id], string(j.name))
			}
			km.Mutants = append(km.Mutants, mk)
		}
	}
	for _, v := range mutant.Variants() {
		if vr := variants[v.Name]; vr != nil {
			km.Variants = append(km.Variants, *vr)
		}
	}
	for _, id := range notApplicable {
		if referencePassed[id] {
			continue // N/A to the open reference server, passed by the protected one
		}
		if !slices.ContainsFunc(km.Variants, func(v VariantResult) bool { return v.Spec.Outcomes[id] == check.Pass }) {
			km.ReferenceFailures = append(km.ReferenceFailures, id+" (N/A, and no permitted variant passes it)")
		}
	}
	for _, d := range check.All() {
		ks := killedBy[d.ID]
		sort.Strings(ks)
		if ks == nil {
			ks = []string{}
			km.Unkilled = append(km.Unkilled, d.ID)
		}
		km.Checks = append(km.Checks, CheckKills{ID: d.ID, KilledBy: ks})
	}
	sort.Strings(km.ReferenceFailures)
	return km
}

// narrowed drops from a kill matrix of selftest --mutants the checks
// that no kept mutant or variant names: they were not run, so they are
// neither killed nor unkilled.
func (km KillMatrix) narrowed(jobs []job) KillMatrix {
	named := map[string]bool{}
	for _, j := range jobs {
		for _, id := range j.targets {
			named[id] = true
		}
	}
	km.Unkilled = slices.DeleteFunc(km.Unkilled, func(id string) bool { return !named[id] })
	km.Checks = slices.DeleteFunc(km.Checks, func(c CheckKills) bool { return !named[c.ID] })
	return km
}

// kills is what a run of a mutant (or a variant under hardened) killed,
// which of its targets survived, and what else it broke.
func kills(j job, res map[string]check.Outcome) MutantKills {
	mk := MutantKills{Name: string(j.name), Killed: []string{}}
	for id, o := range res {
		if !o.Killed() {
			continue
		}
		mk.Killed = append(mk.Killed, id)
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
	return mk
}

// failing lists the checks a run failed, sorted.
func failing(res map[string]check.Outcome) []string {
	out := []string{}
	for id, o := range res {
		if o.Failing() {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// job is one run of the self-test: a reference (name ""), a mutant or a
// permitted variant of the reference client or server, under a profile,
// against the checks in only (all of the role's when empty).
type job struct {
	role    check.Role
	name    mutant.Name
	profile check.Profile
	variant bool
	targets []string // the checks that name it
	only    []string
	skip    bool // nothing to run: no check names the mutant
	// httpOnly serves the server over HTTP alone (a variant of the HTTP
	// server transport leaves the stdio server the reference).
	httpOnly bool
	// auth serves the server as a protected resource (serve --auth) and
	// gives the run its token command and a fixtures file saying
	// protected: true: the reference of the auth checks and the mutants
	// of the protected resource.
	auth bool
	// parallel is the run's --parallel: a run of many checks (a
	// reference, a variant under spec) spreads them over workers.
	parallel int
}

// big reports whether the job runs many checks.
func (j job) big() bool { return len(j.only) == 0 || len(j.only) > 8 }

// size is how many checks the job runs, all of its role's when only is empty.
func (j job) size() int {
	if len(j.only) == 0 {
		return len(check.All())
	}
	return len(j.only)
}

func (j job) label() string {
	switch {
	case j.name == "" && j.auth:
		return "reference " + string(j.role) + " (auth)"
	case j.name == "":
		return "reference " + string(j.role)
	case j.variant:
		return fmt.Sprintf("variant %s (%s)", j.name, j.profile)
	}
	return string(j.name)
}

// fuzzArgs run the client fuzz checks in every client run of the
// self-test, with enough cases that consecutive seeds cover each focus of
// their generators (10 for stdio).
var fuzzArgs = []string{"--fuzz", "--fuzz-cases", "10"}

// runMutant runs `mcpconform client` or `mcpconform server` in a child
// process against the reference (or its mutant), and returns each check's
// outcome. A mutant server is served from this process.
func runMutant(dir string, j job, seed int64, verbose bool, stderr io.Writer) (map[string]check.Outcome, error) {
	name := j.fileName()
	out, log := filepath.Join(dir, name+".json"), filepath.Join(dir, name+".log")
	args, stop, err := j.args(out, seed)
	if err != nil {
		return nil, err
	}
	defer stop()
	argv := selfexec.Command(string(j.role), args...)
	if verbose {
		fmt.Fprintln(stderr, "selftest:", strings.Join(argv, " "))
	}
	if err := runLogged(argv, log); err != nil {
		return nil, err
	}
	return outcomesIn(out)
}

// fileName names the job's report and log in the self-test's directory.
func (j job) fileName() string {
	name := string(j.name)
	if name == "" {
		name = "reference-" + string(j.role)
	}
	if j.auth && j.name == "" {
		name += "-auth"
	}
	return name + "-" + string(j.profile)
}

// args are the job's flags and target, writing its JSON index to out; a
// mutant server is started in this process, and stop ends it.
func (j job) args(out string, seed int64) (args []string, stop func(), err error) {
	args = []string{"--json", out, "--no-color", "--seed", fmt.Sprint(seed), "--profile", string(j.profile), "--parallel", fmt.Sprint(j.parallel),
		"--patience", selftestPatience.String()}
	if len(j.only) > 0 {
		args = append(args, "--only", strings.Join(j.only, ","))
	}
	stop = func() {}
	switch j.role {
	case check.Server:
		args = append(args, "--timeout", selftestServerDeadline.String())
		if j.auth {
			url, as, stopServer, err := serve.StartAuth(run.ReferenceServer(j.name))
			if err != nil {
				return nil, nil, err
			}
			fixtures := filepath.Join(filepath.Dir(out), "protected.yaml")
			if err := os.WriteFile(fixtures, []byte("protected: true\n"), 0o600); err != nil {
				_ = stopServer()
				return nil, nil, err
			}
			return append(args, "--url", url, "--auth-token-command", serve.TokenCommand(as.URL()), "--fixtures", fixtures), func() { _ = stopServer() }, nil
		}
		if j.name == "" {
			return args, stop, nil
		}
		url, stopServer, err := serve.Start(run.ReferenceServer(j.name))
		if err != nil {
			return nil, nil, err
		}
		args = append(args, "--url", url)
		if !j.httpOnly {
			args = append(append(args, "--"), run.ReferenceServerCommand(j.name)...)
		}
		return args, func() { _ = stopServer() }, nil
	default:
		args = append(args, fuzzArgs...)
		if j.name != "" {
			args = append(append(args, "--"), run.ReferenceAdapter(j.name)...)
		}
		return args, stop, nil
	}
}

// runLogged runs argv with its output in the file log; exit status 0 or
// 1 (checks failed) is a run, any other an error with the log's end.
func runLogged(argv []string, log string) error {
	code, err := runTracked(argv, log)
	if err != nil {
		return err
	}
	if code != 0 && code != 1 {
		return fmt.Errorf("exit status %d; the end of its output:\n%s", code, logTail(log))
	}
	return nil
}

// runTracked runs argv with its output in the file log and returns its
// exit status; err only when it could not be started.
func runTracked(argv []string, log string) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	f, _ := os.Create(log)
	if f != nil {
		defer f.Close()
		cmd.Stdout, cmd.Stderr = f, f
	}
	// Tracked, so that no reaping of orphans in this process (the fuzz
	// matrix's servers) takes the run for one.
	if err := reaper.StartTracked(cmd); err != nil {
		return 0, fmt.Errorf("starting %s: %v", argv[0], err)
	}
	_ = cmd.Wait()
	reaper.Untrack(cmd.Process.Pid)
	return cmd.ProcessState.ExitCode(), nil
}

// outcomesIn reads a run's JSON index: each check's outcome, skips left out.
func outcomesIn(path string) (map[string]check.Outcome, error) {
	ix, err := indexIn(path)
	if err != nil {
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

// indexIn reads a run's JSON index.
func indexIn(path string) (*report.Index, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ix report.Index
	if err := json.Unmarshal(b, &ix); err != nil {
		return nil, fmt.Errorf("the report %s is unreadable: %w", path, err)
	}
	return &ix, nil
}

// logTail is the last lines of a run's log, for the error that stops the
// self-test (the log itself goes with the temporary directory).
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	const tail = 15
	if len(lines) > tail {
		lines = lines[len(lines)-tail:]
	}
	return "  " + strings.Join(lines, "\n  ")
}
