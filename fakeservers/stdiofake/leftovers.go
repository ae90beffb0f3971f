package stdiofake

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"syscall"
)

// KillLeftovers sends SIGKILL to every process the record names (the fakes'
// own pids and their children) that is still alive, and returns those pids.
// The harness calls it after judging a client, so that a client that failed
// to end its server's process tree leaves nothing behind. Zombies (dead,
// waiting to be reaped) do not count as alive.
func KillLeftovers(rec *Record) []int {
	var killed []int
	var seen []int
	for _, pid := range append(rec.PIDs(), rec.Children()...) {
		if slices.Contains(seen, pid) {
			continue
		}
		seen = append(seen, pid)
		if pid <= 1 || pid == os.Getpid() || !Alive(pid) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed = append(killed, pid)
		}
	}
	return killed
}

// Alive reports whether pid names a running process. Where /proc exists, a
// zombie is not alive.
func Alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// The state follows the command name, which is in parentheses and may itself hold ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return true
	}
	state := stat[i+2]
	return state != 'Z' && state != 'X'
}
