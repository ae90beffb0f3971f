//go:build linux

package reaper

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pidOf waits for the pid file a shell writes and returns its content.
func pidOf(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the shell never wrote its grandchild's pid")
	return 0
}

// start runs script under sh in its own process group with the owner's
// mark, as the harness's starters do.
func start(t *testing.T, owner, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), Env(owner))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	Track(cmd.Process.Pid)
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait(); Untrack(cmd.Process.Pid) })
	return cmd
}

// awaitLeft waits until pid has left process group pgid and runs sleep:
// before that a group kill would still reach it.
func awaitLeft(t *testing.T, pid, pgid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if p, ok := stat(pid); ok && p.pgrp != pgid && p.comm == "sleep" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d never left group %d to run sleep", pid, pgid)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func gone(pid int) bool {
	for _, p := range scan() {
		if p.pid == pid {
			return p.zombie
		}
	}
	return true
}

// TestReapFindsWhatLeftTheSession: a grandchild that started a session of
// its own (setsid) escapes the group kill; the owner's mark finds it.
func TestReapFindsWhatLeftTheSession(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc here")
	}
	pidFile := t.TempDir() + "/pid"
	owner := NewOwner("test")
	cmd := start(t, owner, "setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! >"+pidFile+"; wait")
	pid := pidOf(t, pidFile)
	awaitLeft(t, pid, cmd.Process.Pid)
	if got := Owned(owner, cmd.Process.Pid); len(got) != 1 || got[0].Pid != pid {
		t.Fatalf("Owned = %v, want the grandchild %d", got, pid)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	killed := Reap(owner, 2*time.Second)
	if len(killed) != 1 || killed[0].Pid != pid {
		t.Errorf("Reap killed %v, want the grandchild %d", killed, pid)
	}
	deadline := time.Now().Add(2 * time.Second)
	for !gone(pid) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !gone(pid) {
		t.Errorf("the grandchild %d is still alive", pid)
	}
}

// TestReapAdoptsWhatClearedItsEnvironment: a grandchild without the mark,
// out of the group, is adopted by the subreaper when its parent dies, and
// reaped as an orphan.
func TestReapAdoptsWhatClearedItsEnvironment(t *testing.T) {
	Enable()
	if !Enabled() {
		t.Skip("no child subreaper on this system")
	}
	pidFile := t.TempDir() + "/pid"
	cmd := start(t, NewOwner("test"), "setsid env -i sleep 300 </dev/null >/dev/null 2>&1 & echo $! >"+pidFile+"; wait")
	pid := pidOf(t, pidFile)
	awaitLeft(t, pid, cmd.Process.Pid)
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Wait()
	Untrack(cmd.Process.Pid)
	killed := Reap(NewOwner("another"), 2*time.Second)
	found := false
	for _, p := range killed {
		found = found || p.Pid == pid
	}
	if !found || !gone(pid) {
		t.Errorf("Reap killed %v; the unmarked orphan %d should be among them and gone", killed, pid)
	}
}

// TestScopeStarted: a scope knows whether an owner was made in it, that is
// whether its check may have started a process to reap.
func TestScopeStarted(t *testing.T) {
	_, end := Scope("quiet")
	if ScopeStarted() {
		t.Error("a fresh scope says it started a process")
	}
	end()
	_, end = Scope("busy")
	NewOwner("server")
	if !ScopeStarted() {
		t.Error("a scope that made an owner says it started nothing")
	}
	end()
	_, end = Scope("next")
	defer end()
	if ScopeStarted() {
		t.Error("the next scope inherits the last one's owner")
	}
}

// TestReapSparesAChildBeingStarted: a Reap in another goroutine (another
// fuzz worker's teardown) that scans /proc between a child's start and its
// Track would take the child, this process's own and untracked, for an
// adopted orphan and kill it: the false "alive" findings of fuzz
// --workers 2. The start hook runs the Reap exactly in that window; with
// the start gate it waits until the child is tracked and kills nothing of
// it.
func TestReapSparesAChildBeingStarted(t *testing.T) {
	Enable()
	if !Enabled() {
		t.Skip("no child subreaper on this system")
	}
	scanWaited := make(chan struct{}, 1)
	reaped := make(chan []Proc, 1)
	scanWaitHook = func() {
		select {
		case scanWaited <- struct{}{}:
		default:
		}
	}
	startHook = func(int) {
		go func() { reaped <- Reap(NewOwner("another-worker"), 2*time.Second) }()
		// Either the Reap waits for this start (the gate), or it has
		// run inside the window and is done.
		select {
		case <-scanWaited:
		case got := <-reaped:
			reaped <- got
		}
	}
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err := StartTracked(cmd)
	startHook = nil
	if err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL); _ = cmd.Wait(); Untrack(pid) })
	killed := <-reaped
	scanWaitHook = nil
	for _, p := range killed {
		if p.Pid == pid {
			t.Fatalf("a Reap during the start killed the child %d as an orphan: %v", pid, killed)
		}
	}
	if gone(pid) {
		t.Fatalf("the child %d is gone", pid)
	}
}
