package reaper

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

func subreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return errno
	}
	return nil
}

// SeesProcesses reports whether Left, WaitGone and Reap can see processes
// at all: here they read /proc.
const SeesProcesses = true

// proc is one entry of /proc.
type proc struct {
	pid, ppid, pgrp int
	comm            string
	zombie          bool
}

// scan lists the processes of /proc; one that ends while it is read is
// left out.
func scan() []proc {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]proc, 0, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if p, ok := stat(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// stat reads /proc/PID/stat: "pid (comm) state ppid …", where comm may
// itself hold spaces and parentheses.
func stat(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || close < open {
		return proc{}, false
	}
	rest := bytes.Fields(b[close+1:])
	if len(rest) < 3 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(string(rest[1]))
	pgrp, _ := strconv.Atoi(string(rest[2]))
	return proc{pid: pid, ppid: ppid, pgrp: pgrp, comm: string(b[open+1 : close]), zombie: rest[0][0] == 'Z' || rest[0][0] == 'X'}, true
}

// marked reports whether the process's environment holds the owner mark:
// owner exactly, or any owner it prefixes when owner ends in ".".
func (p proc) marked(owner string) bool {
	if owner == "" {
		return false
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/environ")
	if err != nil {
		return false
	}
	key := []byte(EnvOwner + "=" + owner)
	prefix := owner[len(owner)-1] == '.'
	for len(env) > 0 {
		entry := env
		if i := bytes.IndexByte(env, 0); i >= 0 {
			entry, env = env[:i], env[i+1:]
		} else {
			env = nil
		}
		if prefix && bytes.HasPrefix(entry, key) || bytes.Equal(entry, key) {
			return true
		}
	}
	return false
}

// waitExit blocks until one of pids has ended or d passes, whichever is
// first, on the kernel's exit events (pidfd): no polling. A pid that is
// already gone, or a kernel without pidfds, returns at once.
func waitExit(pids []int, d time.Duration) {
	fds := make([]unix.PollFd, 0, len(pids))
	defer func() { closeAll(fds) }()
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err == unix.ESRCH {
			return // gone already: the caller looks again
		}
		if err != nil {
			// No pidfds here (an old kernel, a seccomp profile): wait a
			// little, so that the caller's loop does not spin.
			time.Sleep(min(d, 10*time.Millisecond))
			return
		}
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	if len(fds) == 0 {
		return
	}
	ms := int(d / time.Millisecond)
	for {
		if _, err := unix.Poll(fds, max(ms, 0)); err != unix.EINTR {
			return
		}
	}
}

func closeAll(fds []unix.PollFd) {
	for _, f := range fds {
		_ = unix.Close(int(f.Fd))
	}
}
