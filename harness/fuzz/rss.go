package fuzz

import (
	"bytes"
	"os"
	"strconv"
)

// groupRSS measures the resident memory of one process group from /proc
// (Linux). Members are found by a scan of /proc, redone every rescanEvery
// readings so that children started later are counted; between scans only
// the known members' statm files are read.
type groupRSS struct {
	pgid    int
	members []int
	reads   int
}

const rescanEvery = 32

var pageSize = int64(os.Getpagesize())

// bytes returns the group's resident bytes; ok is false where /proc is
// missing (not Linux).
func (g *groupRSS) bytes(forceScan bool) (total int64, ok bool) {
	if g.reads%rescanEvery == 0 || forceScan || len(g.members) == 0 {
		g.scan()
	}
	g.reads++
	for _, pid := range g.members {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
		if err != nil {
			continue
		}
		fields := bytes.Fields(b)
		if len(fields) < 2 {
			continue
		}
		pages, err := strconv.ParseInt(string(fields[1]), 10, 64)
		if err == nil {
			total += pages * pageSize
			ok = true
		}
	}
	return total, ok
}

// scan finds the processes whose group is pgid.
func (g *groupRSS) scan() {
	g.members = g.members[:0]
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pid == g.pgid {
			g.members = append(g.members, pid)
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name (field 2) is in parentheses and may hold spaces;
		// the fields after the last ')' are state, ppid, pgrp, ….
		end := bytes.LastIndexByte(stat, ')')
		if end < 0 {
			continue
		}
		rest := bytes.Fields(stat[end+1:])
		if len(rest) >= 3 && string(rest[2]) == strconv.Itoa(g.pgid) {
			g.members = append(g.members, pid)
		}
	}
}
