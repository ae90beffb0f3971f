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
	files   map[int]*os.File // statm, kept open: a reading is one pread each
	reads   int
	buf     [128]byte
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
		f := g.files[pid]
		if f == nil {
			var err error
			if f, err = os.Open("/proc/" + strconv.Itoa(pid) + "/statm"); err != nil {
				continue
			}
			if g.files == nil {
				g.files = map[int]*os.File{}
			}
			g.files[pid] = f
		}
		n, _ := f.ReadAt(g.buf[:], 0)
		fields := bytes.Fields(g.buf[:n])
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

// close releases the open statm files.
func (g *groupRSS) close() {
	for pid, f := range g.files {
		f.Close()
		delete(g.files, pid)
	}
}

// scan finds the processes whose group is pgid.
func (g *groupRSS) scan() {
	g.close()
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
