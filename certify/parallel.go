package certify

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/console"
	"github.com/mcpconform/mcpconform/harness/reaper"
	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// A run with --parallel N starts N worker processes of this executable,
// each the same command with the same flags. Every worker walks the same
// checks in the same order and asks the coordinator (this process, over
// a Unix socket) before each one: the first to ask runs it, the others
// pass it by. A check whose descriptor says Serial runs alone when the run
// certifies a server at a URL (its sessions may share what it keeps). The
// coordinator merges what each worker ran into one set of reports, which
// are the same whatever N is (ordered by ID).

// The environment of a worker: where to ask, where to write, which one it is.
const (
	envShardSocket = "MCPCONFORM_SHARD_SOCKET"
	envShardOut    = "MCPCONFORM_SHARD_OUT"
	envShardWorker = "MCPCONFORM_SHARD_WORKER"
	// envShardProbed names the file of what the coordinator's pre-flight
	// probed (run.Handoff): a worker never probes again.
	envShardProbed = "MCPCONFORM_SHARD_PROBED"
)

// shardConf is a worker's part of a parallel run.
type shardConf struct {
	socket, out string
	worker      int
	probed      string // the coordinator's run.Handoff, as JSON
}

// workerShard reports whether this process is a worker, and takes the
// worker's settings out of the environment so that its targets do not
// inherit them.
func workerShard() (shardConf, bool) {
	sock := os.Getenv(envShardSocket)
	if sock == "" {
		return shardConf{}, false
	}
	c := shardConf{socket: sock, out: os.Getenv(envShardOut), probed: os.Getenv(envShardProbed)}
	c.worker, _ = strconv.Atoi(os.Getenv(envShardWorker))
	for _, k := range []string{envShardSocket, envShardOut, envShardWorker, envShardProbed} {
		_ = os.Unsetenv(k)
	}
	return c, true
}

// shardOutput is what a worker hands back: the results of the checks it
// ran, the era probes' evidence, Ginkgo's report and whether its suite
// passed.
type shardOutput struct {
	Results []shardResult     `json:"results"`
	Eras    map[string]string `json:"eras"`
	Info    map[string]string `json:"info"`
	Tools   toolpolicy.Use    `json:"tools"`
	Suite   types.Report      `json:"suite"`
	Passed  bool              `json:"passed"`
}

type shardResult struct {
	ID         string        `json:"id"`
	Outcome    check.Outcome `json:"outcome"`
	Message    string        `json:"message"`
	DurationMS int64         `json:"duration_ms"`
	Transcript []string      `json:"transcript"`
	Seed       int64         `json:"seed"`
	SeedOnly   bool          `json:"seed_only"`
	// Transports are those a check of transport any was judged on.
	Transports []check.Transport `json:"transports,omitempty"`
}

// runShard runs this worker's share of the checks and writes its output.
func runShard(shard shardConf, o *runOptions, p *prepared, roles []check.Role, stderr io.Writer) int {
	cl, err := dialCoordinator(shard)
	if err != nil {
		return ExitFor(err, stderr)
	}
	run.SetClaimer(cl)
	passed := runSpecs(o, p)
	out := shardOutput{Eras: probedEras(), Info: probedInfo(), Tools: run.ToolUse(), Suite: suiteOnly(lastReport), Passed: passed}
	for _, r := range run.Recorded() {
		out.Results = append(out.Results, shardResult{ID: r.ID, Outcome: r.Outcome, Message: r.Message, DurationMS: r.DurationMS,
			Transcript: r.Transcript, Seed: r.Seed, SeedOnly: r.SeedOnly, Transports: r.Transports})
	}
	b, err := json.Marshal(out)
	if err == nil {
		err = report.WriteFile(shard.out, b)
	}
	if err != nil {
		return ExitFor(fmt.Errorf("worker %d: writing its results: %w", shard.worker, err), stderr)
	}
	return interruptedExit()
}

// certifyParallel runs the checks in worker processes and merges their
// reports.
func certifyParallel(o *runOptions, p *prepared, roles []check.Role, stdout, stderr io.Writer) int {
	dir, err := os.MkdirTemp("", "mcpconform-parallel-")
	if err != nil {
		return ExitFor(err, stderr)
	}
	defer os.RemoveAll(dir)
	n := min(p.workers, p.selected)
	if p.lowered != "" {
		fmt.Fprintln(stdout, "mcpconform: "+p.lowered)
	}
	// The reference's HTTP server, when it is certified, runs here for the
	// pre-flight's probe: each worker starts its own for its checks.
	t, stopTargets, err := startTargets(o, roles)
	if err != nil {
		return ExitFor(err, stderr)
	}
	defer stopTargets()
	var wsMu sync.Mutex
	var ws []*worker
	stopSignals := onSignal(stderr, p.budget, func(cause any) {
		sig := syscall.SIGTERM
		if s, ok := cause.(syscall.Signal); ok {
			sig = s
		}
		wsMu.Lock()
		defer wsMu.Unlock()
		for _, w := range ws {
			_ = w.cmd.Process.Signal(sig)
		}
	})
	defer stopSignals()
	// A target that is no MCP implementation stops the run here, once,
	// before any worker starts.
	cfg := runConfig(o, p, t)
	run.Configure(cfg)
	if err := preflight(cfg, p.judged); err != nil {
		return stopRun(o, p, roles, t, err, stderr)
	}
	run.StartCensus()
	if run.ProbedEras()[check.HTTP].Sessionless {
		// A server without sessions cannot tell two checks apart (their
		// request ids, the capabilities they declared): one at a time.
		n = 1
		fmt.Fprintln(stdout, "mcpconform: the HTTP server keeps no sessions (no Mcp-Session-Id); its checks run one at a time")
	}
	fmt.Fprintf(stdout, "mcpconform %s: certifying %s (seed %d, profile %s, run budget %s, %d workers)\n",
		Version, describeTarget(roles, o, ""), o.seed, p.profile, p.budget, n)
	printDiscovery(stdout, roles, o.verbose)
	f := finished{passed: true}
	if !run.Interrupted() {
		con := console.New(stdout, p.console)
		defer con.Close()
		// Serial checks share what a server keeps per session (the log
		// level, the capabilities declared) only with a server at a URL
		// the user gave: over stdio each check has a process of its own,
		// and each worker certifying the reference starts its own.
		co, err := newCoordinator(filepath.Join(dir, "claims.sock"), con, o.url != "", p.clientCap)
		if err != nil {
			return ExitFor(err, stderr)
		}
		defer co.close()
		probed := filepath.Join(dir, "probed.json")
		if err := writeHandoff(probed); err != nil {
			return ExitFor(err, stderr)
		}
		wsMu.Lock()
		ws, err = startWorkers(o, dir, co.path, probed, n)
		wsMu.Unlock()
		if err != nil {
			return ExitFor(err, stderr)
		}
		waitWorkers(ws, p.budget+2*run.ShutdownGrace+time.Minute)
		con.Close()
		if f, err = mergeShards(ws); err != nil {
			return ExitFor(err, stderr)
		}
	}
	run.Adopt(f.results)
	f.results = run.Results(roles...)
	return finishRun(o, p, roles, t, f, stdout, stderr)
}

// plannedTargets settles the targets without starting anything: the
// client role takes the command after -- as its adapter, the server role
// as the stdio server; without --url or a command the server role
// certifies the reference (its stdio command here; startTargets, or each
// worker of a parallel run, starts its HTTP server).
func plannedTargets(o *runOptions, roles []check.Role) targets {
	t := targets{adapter: o.target, url: o.url, implementation: implementationName(o)}
	if slices.Contains(roles, check.Server) && !slices.Contains(roles, check.Client) {
		t.adapter, t.server = nil, o.target
	}
	t.userServer = t.url != "" || len(t.server) > 0
	if slices.Contains(roles, check.Server) && !t.userServer {
		t.server, t.implementation = run.ReferenceServerCommand(""), "reference"
	}
	return t
}

// worker is one worker process.
type worker struct {
	cmd      *exec.Cmd
	log, out string
	exit     int
}

// workerEnv is the environment of worker i: the coordinator's, so that
// the worker masks the same secret-named variables (RunSecrets), with
// where the coordinator listens, where the worker writes and where the
// pre-flight's findings are.
func workerEnv(socket, out, probed string, i int) []string {
	return append(os.Environ(), envShardSocket+"="+socket, envShardOut+"="+out, envShardWorker+"="+strconv.Itoa(i), envShardProbed+"="+probed)
}

// startWorkers starts n workers: this command with its flags, told by
// the environment where the coordinator listens and where to write.
func startWorkers(o *runOptions, dir, socket, probed string, n int) ([]*worker, error) {
	// The seed the coordinator settled and prints, so that every worker
	// runs the cases that seed names (a later --seed of the user's is the
	// same number).
	args := append([]string{"--seed", strconv.FormatInt(o.seed, 10)}, o.args...)
	if o.command != "" {
		args = append([]string{o.command}, args...)
	}
	ws := make([]*worker, n)
	for i := range ws {
		w := &worker{log: filepath.Join(dir, fmt.Sprintf("worker-%d.log", i)), out: filepath.Join(dir, fmt.Sprintf("worker-%d.json", i))}
		argv := selfexec.Command("shard", args...)
		w.cmd = exec.Command(argv[0], argv[1:]...)
		w.cmd.Env = workerEnv(socket, w.out, probed, i)
		// A group of its own: a terminal's Ctrl-C reaches the coordinator
		// alone, which passes it on once.
		w.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		log, err := os.Create(w.log)
		if err == nil {
			w.cmd.Stdout, w.cmd.Stderr = log, log
			err = reaper.StartTracked(w.cmd)
			log.Close()
		}
		if err != nil {
			started := ws[:i]
			for _, s := range started {
				_ = s.cmd.Process.Kill()
			}
			waitWorkers(started, run.ShutdownGrace)
			return nil, fmt.Errorf("starting worker %d: %w", i, err)
		}
		ws[i] = w
	}
	return ws, nil
}

// writeHandoff writes what this process's pre-flight probed to path, for
// the workers.
func writeHandoff(path string) error {
	b, err := json.Marshal(run.TakeHandoff())
	if err != nil {
		return fmt.Errorf("parallel run: the pre-flight's probes: %w", err)
	}
	return os.WriteFile(path, b, 0o600)
}

// takeHandoff makes the coordinator's probes this worker's.
func takeHandoff(s shardConf) error {
	if s.probed == "" {
		return nil
	}
	b, err := os.ReadFile(s.probed)
	if err != nil {
		return fmt.Errorf("worker %d: the coordinator's probes: %w", s.worker, err)
	}
	var h run.Handoff
	if err := json.Unmarshal(b, &h); err != nil {
		return fmt.Errorf("worker %d: the coordinator's probes are unreadable (%v); a defect of mcpconform", s.worker, err)
	}
	run.GiveHandoff(h)
	return nil
}

// waitWorkers waits for every worker, killing any still running at the
// deadline (past the run budget and its shutdown: a worker that hangs).
func waitWorkers(ws []*worker, deadline time.Duration) {
	timer := time.AfterFunc(deadline, func() {
		for _, w := range ws {
			_ = w.cmd.Process.Kill()
		}
	})
	defer timer.Stop()
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() {
			err := w.cmd.Wait()
			reaper.Untrack(w.cmd.Process.Pid)
			w.exit = ExitCode(err)
		})
	}
	wg.Wait()
}

// ExitCode is a finished command's exit status (-1 when it did not run).
func ExitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}

// mergeShards reads the workers' outputs into one: each check's result
// from the worker that ran it, Ginkgo's report with each spec from that
// worker. A worker that stopped the run (exit 2: a target that is no MCP
// implementation, a harness error) stops the merge with its message.
func mergeShards(ws []*worker) (finished, error) {
	f := finished{passed: true, eras: map[string]string{}, info: map[string]string{}}
	suites := make([]types.Report, len(ws))
	for i, w := range ws {
		b, err := os.ReadFile(w.out)
		if err != nil && interruptedBy() != "" {
			continue // the signal came before the worker could take it
		}
		if err != nil || (w.exit != 0 && w.exit != 1 && w.exit != 130 && w.exit != 143) {
			return f, fmt.Errorf("%s", workerFailure(w, err))
		}
		var out shardOutput
		if err := json.Unmarshal(b, &out); err != nil {
			return f, fmt.Errorf("worker %d wrote unreadable results (%v); a defect of mcpconform", i, err)
		}
		for _, r := range out.Results {
			d, ok := check.Lookup(r.ID)
			if !ok {
				continue
			}
			f.results = append(f.results, check.Result{Descriptor: d, Outcome: r.Outcome, Message: r.Message, DurationMS: r.DurationMS,
				Transcript: r.Transcript, Seed: r.Seed, SeedOnly: r.SeedOnly, Transports: r.Transports})
		}
		maps.Copy(f.eras, out.Eras)
		maps.Copy(f.info, out.Info)
		run.AdoptToolUse(out.Tools)
		suites[i] = out.Suite
		f.passed = f.passed && out.Passed
	}
	f.suite = mergeSuites(suites)
	return f, nil
}

// workerFailure is what a worker that did not finish said: the end of its
// output, which holds the error that stopped it.
func workerFailure(w *worker, err error) string {
	b, _ := os.ReadFile(w.log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	msg := strings.Join(lines, "\n")
	if msg == "" && err != nil {
		msg = err.Error()
	}
	return strings.TrimPrefix(strings.TrimSpace(msg), "mcpconform: ")
}

// suiteOnly is r with only the spec reports mergeSuites keeps, the failed
// suite-level nodes: a worker's report holds one for every check of the
// catalogue, most run by another worker, and its coordinator would read
// them all only to drop them.
func suiteOnly(r types.Report) types.Report {
	kept := r.SpecReports[:0:0]
	for _, sr := range r.SpecReports {
		if sr.LeafNodeType.Is(types.NodeTypesForSuiteLevelNodes) && sr.State.Is(types.SpecStateFailureStates) {
			kept = append(kept, sr)
		}
	}
	r.SpecReports = kept
	return r
}

// mergeSuites is what the JUnit report takes from Ginkgo's reports (its
// cases come from the index): the first worker's start and run time, and
// the suite-level nodes that failed in any worker (a worker a signal
// stopped before it began has no report).
func mergeSuites(suites []types.Report) types.Report {
	var merged types.Report
	for _, s := range suites {
		if !s.StartTime.IsZero() {
			merged = s
			break
		}
	}
	merged.SpecReports = nil
	merged.SuiteSucceeded = true
	for _, s := range suites {
		merged.SuiteSucceeded = merged.SuiteSucceeded && s.SuiteSucceeded
		merged.SpecReports = append(merged.SpecReports, suiteOnly(s).SpecReports...)
	}
	return merged
}

// coordinator hands out the checks of a parallel run.
type coordinator struct {
	path     string
	ln       net.Listener
	progress run.Progress // told of each check as a worker starts and ends it

	mu       sync.Mutex
	cond     *sync.Cond
	claims   map[string]int
	running  int
	serial   bool
	inflight map[int]map[string]bool // worker → check → serial
	// serialise runs a Serial check alone: its verdict hangs on what the
	// server keeps per session, which a server over HTTP may keep for all
	// its sessions at once. Over stdio every check has a process of its
	// own, and so has every worker's reference HTTP server: without a
	// user's URL Serial checks overlap like the others.
	serialise bool
	// clientCap, when not 0, is the most client checks running at once;
	// clients counts them.
	clientCap, clients int
	// awaited are the Serial checks a worker waits to run alone: another
	// worker that reaches one goes on to its next check instead of waiting
	// too, so that a Serial check is no barrier for every worker at once.
	awaited map[string]int
	// gone are the workers that vanished: a claim still pending for one
	// gives it nothing, so that the check goes to another.
	gone map[int]bool
}

func newCoordinator(path string, progress run.Progress, serialise bool, clientCap int) (*coordinator, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("parallel run: listening on %s: %w", path, err)
	}
	c := &coordinator{path: path, ln: ln, progress: progress, claims: map[string]int{}, inflight: map[int]map[string]bool{}, serialise: serialise, clientCap: clientCap,
		awaited: map[string]int{}, gone: map[int]bool{}}
	c.cond = sync.NewCond(&c.mu)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go c.serve(conn)
		}
	}()
	return c, nil
}

func (c *coordinator) close() { _ = c.ln.Close() }

// serve answers one worker: "worker N", then "claim ID 0|1" (answered
// "yes" or "no"), "census wait|now" (answered with the run's tool census
// as JSON, once it is taken or as far as it went) and "done ID OUTCOME MS". A worker that goes away gives
// back what it was running, ERROR.
func (c *coordinator) serve(conn net.Conn) {
	defer conn.Close()
	sc := bufio.NewScanner(conn)
	w := -1
	defer func() { c.release(w) }()
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "worker":
			w, _ = strconv.Atoi(f[1])
		case len(f) == 3 && f[0] == "claim":
			answer := "no\n"
			if c.claim(f[1], f[2] == "1", w) {
				answer = "yes\n"
			}
			if _, err := io.WriteString(conn, answer); err != nil {
				return
			}
		case len(f) == 2 && f[0] == "census":
			b, err := json.Marshal(run.TakenCensus(f[1] == "wait"))
			if err != nil {
				return
			}
			if _, err := fmt.Fprintf(conn, "%s\n", b); err != nil {
				return
			}
		case len(f) == 4 && f[0] == "done":
			ms, _ := strconv.ParseInt(f[3], 10, 64)
			c.done(f[1], w, check.Outcome(f[2]), time.Duration(ms)*time.Millisecond)
		}
	}
}

// claim gives id to worker w unless another has it; a serial check waits
// until nothing runs (one worker waits for it; another that reaches it
// goes on), and nothing starts while one runs or is waited for; a client
// check waits while clientCap of them run.
func (c *coordinator) claim(id string, serial bool, w int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	serial = serial && c.serialise
	client := c.clientCap > 0 && isClientCheck(id)
	for {
		if _, taken := c.claims[id]; taken || c.gone[w] {
			return false
		}
		// A serial check waited for goes before any check not yet started:
		// the run's Serial checks then run one after another, not each
		// when the others happen to leave a gap.
		waitedFor := !serial && len(c.awaited) > 0
		if !c.serial && !waitedFor && (!serial || c.running == 0) && (!client || c.clients < c.clientCap) {
			break
		}
		if serial {
			if waiter, ok := c.awaited[id]; ok && waiter != w {
				return false // another worker waits to run it
			}
			c.awaited[id] = w
		}
		c.cond.Wait()
	}
	delete(c.awaited, id)
	c.claims[id] = w
	c.running++
	if client {
		c.clients++
	}
	c.serial = c.serial || serial
	if c.inflight[w] == nil {
		c.inflight[w] = map[string]bool{}
	}
	c.inflight[w][id] = serial
	c.progress.Started(id)
	return true
}

func (c *coordinator) done(id string, w int, o check.Outcome, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if serial, ok := c.inflight[w][id]; ok {
		delete(c.inflight[w], id)
		c.running--
		if c.clientCap > 0 && isClientCheck(id) {
			c.clients--
		}
		if serial {
			c.serial = false
		}
		c.progress.Finished(id, o, took)
		c.cond.Broadcast()
	}
}

// isClientCheck reports whether the check id judges a client.
func isClientCheck(id string) bool {
	d, ok := check.Lookup(id)
	return ok && d.Role == check.Client
}

// release ends whatever a vanished worker was running.
func (c *coordinator) release(w int) {
	c.mu.Lock()
	ids := slices.Collect(maps.Keys(c.inflight[w]))
	c.gone[w] = true
	maps.DeleteFunc(c.awaited, func(_ string, waiter int) bool { return waiter == w })
	c.cond.Broadcast()
	c.mu.Unlock()
	for _, id := range ids {
		c.done(id, w, check.Error, 0)
	}
}

// claimClient is a worker's side of the coordinator.
type claimClient struct {
	mu   sync.Mutex
	conn net.Conn
	r    *bufio.Reader
}

func dialCoordinator(s shardConf) (*claimClient, error) {
	conn, err := net.Dial("unix", s.socket)
	if err != nil {
		return nil, fmt.Errorf("worker %d: the coordinator of the parallel run is gone (%v)", s.worker, err)
	}
	if _, err := fmt.Fprintf(conn, "worker %d\n", s.worker); err != nil {
		return nil, err
	}
	return &claimClient{conn: conn, r: bufio.NewReader(conn)}, nil
}

func (c *claimClient) Claim(id string, serial bool) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	flag := "0"
	if serial {
		flag = "1"
	}
	if _, err := fmt.Fprintf(c.conn, "claim %s %s\n", id, flag); err != nil {
		return false, err
	}
	line, err := c.r.ReadString('\n')
	return line == "yes\n", err
}

// Census asks the coordinator for the run's tool census (run.RemoteCensus).
func (c *claimClient) Census(wait bool) (run.Census, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var got run.Census
	how := "now"
	if wait {
		how = "wait"
	}
	if _, err := fmt.Fprintf(c.conn, "census %s\n", how); err != nil {
		return got, err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return got, err
	}
	return got, json.Unmarshal([]byte(line), &got)
}

func (c *claimClient) Done(id string, o check.Outcome, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = fmt.Fprintf(c.conn, "done %s %s %d\n", id, o, took.Milliseconds())
}
