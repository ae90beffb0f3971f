// Package reaper makes sure no process a check started outlives it, even
// one that left its process group or its session (setsid, a daemonising
// wrapper, npx's children).
//
// Every process the harness starts for a check carries an owner mark in
// its environment (EnvOwner=TOKEN), which its descendants inherit; Owned
// lists the live processes with a mark and Reap kills them, wherever they
// are in the process tree. The harness is also the child subreaper of its
// descendants (Linux PR_SET_CHILD_SUBREAPER, turned on by Enable), so a
// descendant orphaned by its parent's death becomes the harness's child
// rather than init's: Reap kills and reaps those too, marked or not (a
// process that cleared its environment is attributed to the check that
// reaps first). Processes the harness started itself and waits for through
// os/exec are registered with Track, so that Reap never waits for them in
// their Wait's place.
//
// Where /proc does not exist (macOS, Windows builds) the package finds
// nothing and the process groups the starters create remain the only net.
package reaper

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// EnvOwner is the environment variable that marks a process, and every
// descendant that keeps its environment, as started for one owner.
const EnvOwner = "MCPCONFORM_OWNER"

// Proc is a process found alive: its id and its command name.
type Proc struct {
	Pid  int
	Comm string
}

func (p Proc) String() string { return fmt.Sprintf("%d (%s)", p.Pid, p.Comm) }

var (
	enabled atomic.Bool
	seq     atomic.Int64

	mu      sync.Mutex
	tracked = map[int]bool{}
)

// Enable makes this process the child subreaper of its descendants, where
// the system has one, and turns on the reaping of orphans: call it once,
// in a process whose every child is started through a starter that calls
// Track (the CLI's commands), never in a process whose children others
// start and wait for (a test binary).
func Enable() {
	if subreaper() == nil {
		enabled.Store(true)
	}
}

// Enabled reports whether Enable succeeded.
func Enabled() bool { return enabled.Load() }

// NewOwner returns a fresh owner token, unique within this run and
// prefixed by it (and by the scope in force, if any), so that ReapAll and
// a Reap of the scope find what any owner left.
func NewOwner(what string) string {
	prefix := runPrefix()
	if s, _ := scope.Load().(string); s != "" {
		prefix = s
	}
	made.Store(true)
	return fmt.Sprintf("%s.%d.%s", prefix, seq.Add(1), strings.Map(safe, what))
}

var (
	scope atomic.Value // string: the prefix of the owners made now
	made  atomic.Bool  // an owner was made since the scope began
)

// ScopeStarted reports whether an owner was made since the scope in force
// began: whether the check may have started a process. One that started
// none has nothing of its own to reap, and its Reap, a scan of /proc, can
// be left out; orphans another check's processes left are reaped by the
// next Reap, and ReapAll at the end of the run.
func ScopeStarted() bool { return made.Load() }

// Scope makes every owner made until end part of one scope (a check: one
// runs at a time in a process) and returns the prefix that Reap kills it
// all by.
func Scope(name string) (prefix string, end func()) {
	s := fmt.Sprintf("%s.c%d-%s", runPrefix(), seq.Add(1), strings.Map(safe, name))
	scope.Store(s)
	made.Store(false)
	return s + ".", func() { scope.Store("") }
}

// Env is the environment entry that marks a process for owner.
func Env(owner string) string { return EnvOwner + "=" + owner }

func runPrefix() string { return "r" + strconv.Itoa(os.Getpid()) }

func safe(r rune) rune {
	if r == '.' || r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
		return r
	}
	return '_'
}

// StartTracked starts cmd and Tracks its process, both inside the start
// gate: a scan for orphans (Reap, WaitLeft) in another goroutine never
// takes its snapshot of /proc between the child's start and its Track,
// where the child, this process's own and not yet tracked, would pass for
// an adopted orphan and be killed. Every starter whose children may live
// beside a Reap (workers of a fuzz run, parallel checks) starts through it.
func StartTracked(cmd *exec.Cmd) error {
	beginStart()
	defer endStart()
	if err := cmd.Start(); err != nil {
		return err
	}
	if startHook != nil {
		startHook(cmd.Process.Pid)
	}
	Track(cmd.Process.Pid)
	return nil
}

// The start gate: starts (between cmd.Start and Track) and orphan scans
// (the snapshot of /proc a Reap or WaitLeft judges) exclude each other;
// starts run side by side, and so do scans. A scan waiting keeps new
// starts out, so that a busy starter never starves it.
var gate struct {
	sync.Mutex
	cond                            *sync.Cond
	starting, scanning, scanWaiting int
}

func init() { gate.cond = sync.NewCond(&gate.Mutex) }

// startHook and scanWaitHook, when set, are called between a child's start
// and its Track, and when a scan has to wait for a start (tests).
var startHook func(pid int)
var scanWaitHook func()

func beginStart() {
	gate.Lock()
	for gate.scanning > 0 || gate.scanWaiting > 0 {
		gate.cond.Wait()
	}
	gate.starting++
	gate.Unlock()
}

func endStart() {
	gate.Lock()
	gate.starting--
	gate.cond.Broadcast()
	gate.Unlock()
}

// scanned is candidates, taken while no start is between its cmd.Start and
// its Track: every child of this process it lists that is not tracked is
// an orphan indeed.
func scanned() []proc {
	gate.Lock()
	gate.scanWaiting++
	for gate.starting > 0 {
		if scanWaitHook != nil {
			scanWaitHook()
		}
		gate.cond.Wait()
	}
	gate.scanWaiting--
	gate.scanning++
	gate.Unlock()
	defer func() {
		gate.Lock()
		gate.scanning--
		gate.cond.Broadcast()
		gate.Unlock()
	}()
	return candidates()
}

// Track registers pid as a child this process waits for itself (os/exec);
// Untrack once its Wait returned. A child started beside a Reap in another
// goroutine is started with StartTracked instead.
func Track(pid int) {
	mu.Lock()
	tracked[pid] = true
	mu.Unlock()
}

// Untrack ends Track.
func Untrack(pid int) {
	mu.Lock()
	delete(tracked, pid)
	mu.Unlock()
}

func isTracked(pid int) bool {
	mu.Lock()
	defer mu.Unlock()
	return tracked[pid]
}

// Owned lists the live processes marked for owner (an owner ending in "."
// matches every owner with that prefix), except except.
func Owned(owner string, except ...int) []Proc { return Left(owner, 0, except...) }

// Left lists the live processes marked for owner or in process group
// pgid (0: none), except except: what a process left behind.
func Left(owner string, pgid int, except ...int) []Proc { return left(owner, pgid, false, except) }

// left is Left, and with orphans also every live orphan this process
// adopted (the subreaper on): a descendant that left the group and cleared
// its environment, whose parent is gone.
func left(owner string, pgid int, orphans bool, except []int) []Proc {
	var out []Proc
	all := candidates
	if orphans {
		all = scanned
	}
	for _, p := range all() {
		adopted := orphans && enabled.Load() && p.ppid == os.Getpid() && !isTracked(p.pid)
		if p.zombie || contains(except, p.pid) || !(adopted || pgid > 0 && p.pgrp == pgid || p.marked(owner)) {
			continue
		}
		out = append(out, Proc{p.pid, p.comm})
	}
	return out
}

// candidates are the processes that may be this process's to find: with
// the subreaper on, only its descendants, since every orphan of its tree is
// adopted by it (or by a subreaper below it), so the environment of no
// other process needs reading; without it, every process.
func candidates() []proc {
	all := scan()
	if !enabled.Load() {
		return all
	}
	children := map[int][]int{}
	byPID := make(map[int]proc, len(all))
	for _, p := range all {
		children[p.ppid] = append(children[p.ppid], p.pid)
		byPID[p.pid] = p
	}
	var out []proc
	queue := children[os.Getpid()]
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		out = append(out, byPID[pid])
		queue = append(queue, children[pid]...)
	}
	return out
}

// Reap kills every live process marked for owner and, when Enable
// succeeded, every orphan this process adopted; it reaps the ones that are
// its children and repeats until none is left (a killed process's own
// children are adopted in turn) or d passes. It returns what it killed.
// Processes in except (a tracked child whose Wait is still to come) are
// left alone.
func Reap(owner string, d time.Duration, except ...int) []Proc {
	var killed []Proc
	seen := map[int]bool{}
	deadline := time.Now().Add(d)
	for {
		found := false
		var signalled []int
		for _, p := range scanned() {
			if contains(except, p.pid) || p.pid == os.Getpid() {
				continue
			}
			orphan := enabled.Load() && p.ppid == os.Getpid() && !isTracked(p.pid)
			if !orphan && !p.marked(owner) {
				continue
			}
			if orphan && p.zombie {
				reap(p.pid)
				continue
			}
			if p.zombie {
				continue // another parent's to reap
			}
			found = true
			signalled = append(signalled, p.pid) // waited for even when the kill fails, so the loop never spins
			if syscall.Kill(p.pid, syscall.SIGKILL) == nil {
				if !seen[p.pid] {
					seen[p.pid] = true
					killed = append(killed, Proc{p.pid, p.comm})
				}
			}
			if orphan {
				reap(p.pid)
			}
		}
		if !found || time.Now().After(deadline) {
			return killed
		}
		waitExit(signalled, time.Until(deadline))
	}
}

// WaitGone waits until no process Left finds for owner and pgid is alive,
// or d passes, on exit events rather than a sleep; it returns those still
// alive.
func WaitGone(owner string, pgid int, d time.Duration) []Proc { return waitGone(owner, pgid, false, d) }

// WaitLeft is WaitGone counting the orphans this process adopted too: what
// a child that has exited left alive, whatever its environment (a client
// may start its server with a cleared one).
func WaitLeft(owner string, pgid int, d time.Duration) []Proc { return waitGone(owner, pgid, true, d) }

func waitGone(owner string, pgid int, orphans bool, d time.Duration) []Proc {
	deadline := time.Now().Add(d)
	for {
		alive := left(owner, pgid, orphans, nil)
		if len(alive) == 0 || !time.Now().Before(deadline) {
			return alive
		}
		waitExit(pids(alive), time.Until(deadline))
	}
}

// WaitExit waits until every process in pids has ended (a zombie counts as
// ended) or d passes, on exit events rather than a sleep; it returns those
// still alive.
func WaitExit(pids []int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		var alive []int
		for _, pid := range pids {
			if p, ok := stat(pid); ok && !p.zombie {
				alive = append(alive, pid)
			}
		}
		if len(alive) == 0 || !time.Now().Before(deadline) {
			return alive
		}
		waitExit(alive, time.Until(deadline))
	}
}

func pids(ps []Proc) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.Pid
	}
	return out
}

var stopped atomic.Bool

// ErrStopped is what a starter returns once Stop was called.
var ErrStopped = errors.New("not started: the run is being interrupted")

// Stop refuses every later start (starters check Stopped) and reaps all
// that is running: the end of an interrupted run, after which nothing new
// may begin.
func Stop(d time.Duration) []Proc {
	stopped.Store(true)
	return ReapAll(d)
}

// Restart lets starters start again: a new run in the same process.
func Restart() { stopped.Store(false) }

// Stopped reports whether Stop was called; starters return ErrStopped.
func Stopped() bool { return stopped.Load() }

// ReapAll is Reap for every owner of this run, and every adopted orphan:
// what the CLI calls before it exits.
func ReapAll(d time.Duration) []Proc { return Reap(runPrefix()+".", d) }

func contains(pids []int, pid int) bool {
	for _, p := range pids {
		if p == pid {
			return true
		}
	}
	return false
}

// reap collects the exit status of an adopted child, once its SIGKILL
// has landed (or briefly, if it has not).
func reap(pid int) {
	waitExit([]int{pid}, 200*time.Millisecond)
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
}
