package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// DeviceWait bounds each wait of a write straight through a FIFO or a
// device: for a reader to open the FIFO, and for the reader to take what is
// written.
const DeviceWait = 30 * time.Second

// maxLinks bounds the symbolic links followed from a report path, as the
// kernel does (ELOOP).
const maxLinks = 40

// Writer writes reports to the paths the user names, replacing only what
// may be replaced (see WriteFile).
type Writer struct {
	// Wait bounds each wait of a write through a FIFO or a device; zero
	// means DeviceWait.
	Wait time.Duration
}

// WriteFile writes data to path with the default Writer.
func WriteFile(path string, data []byte) error { return Writer{}.WriteFile(path, data) }

// WriteFile writes data to path, replacing only what may be replaced:
//
//   - a regular file or a new path is written whole or not at all: a
//     temporary file in the same directory, synced and renamed over it, so a
//     reader never sees a partial report and a failed write leaves the
//     previous file untouched (missing parent directories are created);
//   - a character device, a FIFO, this process's standard output or error
//     (/dev/stdout, /dev/fd/1, /proc/self/fd/1) or another descriptor path
//     is written straight through: opened write-only, never created,
//     truncated or replaced, each wait bounded by w.Wait;
//   - a symbolic link is followed and its final target gets the policy of
//     what it is; the link itself is never replaced.
//
// A directory, a block device or a socket named by path is refused. Every
// error names the path and the way out.
func (w Writer) WriteFile(path string, data []byte) error {
	d, err := resolve(path)
	if err != nil {
		return err
	}
	switch d.kind {
	case destStd:
		if _, err := d.std.Write(data); err != nil {
			return throughError(path, d, "write", err)
		}
		return nil
	case destThrough:
		return w.writeThrough(path, d, data)
	}
	return writeAtomic(path, d.path, data)
}

// CheckWritable refuses, before a run, what WriteFile could not write: a
// directory, a block device, a socket, a node this process may not write, a
// path under something that is not a directory, a directory this process
// may not create files in, or a closed standard stream. It opens no node,
// so it never waits on a FIFO nor disturbs its reader.
func CheckWritable(path string) error {
	if path == "" {
		return nil
	}
	d, err := resolve(path)
	if err != nil {
		return err
	}
	switch d.kind {
	case destStd:
		if _, err := d.std.Stat(); err != nil {
			return fmt.Errorf("report path %s: %s is closed (%v); run mcpconform with it open, or name a file", path, d.std.Name(), err)
		}
		return nil
	case destThrough:
		if err := unix.Access(d.path, unix.W_OK); err != nil {
			return fmt.Errorf("report path %s (%s): %v; name a path this process may write", path, d.what, err)
		}
		return nil
	}
	dir := filepath.Dir(d.path)
	fi, err := os.Stat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("report path %s: %v; create the directory first", path, err)
	case !fi.IsDir():
		return fmt.Errorf("report path %s: %s is not a directory; name a path in a directory", path, dir)
	}
	probe, err := os.CreateTemp(dir, ".mcpconform-write-check-*")
	if err != nil {
		return fmt.Errorf("report path %s: cannot write in %s: %v", path, dir, err)
	}
	probe.Close()
	return os.Remove(probe.Name())
}

type destKind int

const (
	destFile    destKind = iota // a regular file or a new path: replaced atomically
	destThrough                 // a character device, a FIFO or a descriptor: written straight through
	destStd                     // this process's standard output or error
)

// dest is where a report path leads once its links are followed.
type dest struct {
	kind destKind
	path string   // the final path: the file to replace, or the node to open
	what string   // the node, in words: "a FIFO", "a character device"
	fifo bool     // the node is a FIFO: open it with a bounded wait
	flag int      // open flags of a write through
	std  *os.File // destStd: os.Stdout or os.Stderr
}

// fdPath matches the paths that name an open descriptor: /dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/PID/fd/N (self and thread-self too).
var fdPath = regexp.MustCompile(`^/(?:dev/(stdout|stderr)|dev/fd/([0-9]+)|proc/(self|thread-self|[0-9]+)/fd/([0-9]+))$`)

// resolve follows path's symbolic links one at a time to what a report
// written there would touch.
func resolve(path string) (dest, error) {
	p := path
	for range maxLinks {
		if m := fdPath.FindStringSubmatch(filepath.Clean(p)); m != nil {
			return descriptor(path, p, m)
		}
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return dest{kind: destFile, path: p}, nil
		case err != nil:
			return dest{}, fmt.Errorf("report path %s: %v; choose a path in a writable directory", path, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return dest{}, fmt.Errorf("report path %s: read the link %s: %v; name the file itself", path, p, err)
			}
			if !filepath.IsAbs(target) {
				// Not Join: Join would clean "dir/../x" lexically, past a linked dir.
				target = filepath.Dir(p) + string(filepath.Separator) + target
			}
			p = target
			continue
		}
		return node(path, p, fi.Mode())
	}
	return dest{}, fmt.Errorf("report path %s: more than %d symbolic links; name the file itself", path, maxLinks)
}

// descriptor is where a descriptor path leads: this process's standard
// output or error as they are, any other descriptor's node opened through
// the path (a regular file appended to, never truncated).
func descriptor(path, p string, m []string) (dest, error) {
	fd := -1
	switch {
	case m[1] == "stdout":
		fd = 1
	case m[1] == "stderr":
		fd = 2
	case m[2] != "":
		fd, _ = strconv.Atoi(m[2])
	case m[3] == "self" || m[3] == "thread-self" || m[3] == strconv.Itoa(os.Getpid()):
		fd, _ = strconv.Atoi(m[4])
	}
	switch fd {
	case 1:
		return dest{kind: destStd, path: p, what: "standard output", std: os.Stdout}, nil
	case 2:
		return dest{kind: destStd, path: p, what: "standard error", std: os.Stderr}, nil
	}
	fi, err := os.Stat(p)
	if err != nil {
		return dest{}, fmt.Errorf("report path %s: %v; name an open descriptor or a file", path, err)
	}
	if fi.Mode().IsRegular() {
		return dest{kind: destThrough, path: p, what: "a descriptor's file", flag: os.O_WRONLY | os.O_APPEND}, nil
	}
	return node(path, p, fi.Mode())
}

// node is the policy for an existing node that is not a link.
func node(path, p string, mode fs.FileMode) (dest, error) {
	switch {
	case mode.IsRegular():
		return dest{kind: destFile, path: p}, nil
	case mode.IsDir():
		return dest{}, fmt.Errorf("report path %s is a directory; name a file inside it", path)
	case mode&fs.ModeNamedPipe != 0:
		return dest{kind: destThrough, path: p, what: "a FIFO", fifo: true, flag: os.O_WRONLY}, nil
	case mode&fs.ModeCharDevice != 0:
		return dest{kind: destThrough, path: p, what: "a character device", flag: os.O_WRONLY}, nil
	case mode&fs.ModeDevice != 0:
		return dest{}, fmt.Errorf("report path %s is a block device; name a file, a FIFO or a character device", path)
	case mode&fs.ModeSocket != 0:
		return dest{}, fmt.Errorf("report path %s is a socket, which cannot be opened by path; name a file, or /dev/stdout when standard output is the socket", path)
	}
	return dest{}, fmt.Errorf("report path %s is not a file (mode %v); name a file, a FIFO or a character device", path, mode)
}

// writeThrough writes data to an existing node without creating, truncating
// or replacing it: a FIFO waits at most w.Wait for its reader to open it,
// and each write waits at most w.Wait for the reader to take it.
func (w Writer) writeThrough(path string, d dest, data []byte) error {
	wait := w.Wait
	if wait <= 0 {
		wait = DeviceWait
	}
	f, err := openBounded(d, wait)
	if err != nil {
		return throughError(path, d, "open", err)
	}
	// Not every node can time a write (a regular file, /dev/null); those never wait.
	if err := f.SetWriteDeadline(time.Now().Add(wait)); err != nil && !errors.Is(err, os.ErrNoDeadline) {
		f.Close()
		return throughError(path, d, "open", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = fmt.Errorf("its reader took nothing for %s", wait)
	}
	if err != nil {
		return throughError(path, d, "write", err)
	}
	return nil
}

// openBounded opens d's node for writing; a FIFO without a reader is given
// up after wait, its open released by opening the reading end ourselves.
func openBounded(d dest, wait time.Duration) (*os.File, error) {
	done := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(d.path, d.flag, 0)
		done <- opened{f, err}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case o := <-done:
		return o.f, o.err
	case <-timer.C:
	}
	if !d.fifo {
		go closeLate(done) // an open that returns after all is not kept
		return nil, fmt.Errorf("the open did not return within %s", wait)
	}
	// Opening the reading end ourselves ends the open in flight at once.
	if r, err := os.OpenFile(d.path, os.O_RDONLY|unix.O_NONBLOCK, 0); err == nil {
		timer.Reset(wait)
		select {
		case o := <-done:
			if o.f != nil {
				o.f.Close()
			}
		case <-timer.C:
			go closeLate(done)
		}
		r.Close()
	}
	return nil, fmt.Errorf("no reader opened it within %s", wait)
}

// opened is what an open in flight returned.
type opened struct {
	f   *os.File
	err error
}

// closeLate closes the file of an open given up on, when it returns.
func closeLate(done <-chan opened) {
	if o := <-done; o.f != nil {
		o.f.Close()
	}
}

// throughError names the path, the node and the way out of a failed write
// through.
func throughError(path string, d dest, step string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) { // the path is said once
		err = pe.Err
	}
	via := ""
	if d.path != path {
		via = " (" + d.path + ")"
	}
	way := "name a regular file instead"
	if d.fifo {
		way = "start its reader first, or " + way
	}
	return fmt.Errorf("write %s%s, %s: %s: %w; the report was not delivered: %s", path, via, d.what, step, err, way)
}

// writeAtomic replaces the regular file (or creates the new one) at final,
// the resolved form of path, whole or not at all.
func writeAtomic(path, final string, data []byte) error {
	dir := filepath.Dir(final)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: create directory: %w; choose a path in a writable directory", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(final)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w; choose a path in a writable directory", path, err)
	}
	tmpName := tmp.Name()
	fail := func(step string, err error) error {
		tmp.Close()
		os.Remove(tmpName)
		return fmt.Errorf("write %s: %s: %w; check the free space and permissions of %s, or choose another path", path, step, err, dir)
	}
	if _, err := tmp.Write(data); err != nil {
		return fail("write", err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fail("chmod", err)
	}
	if err := tmp.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := tmp.Close(); err != nil {
		return fail("close", err)
	}
	if err := os.Rename(tmpName, final); err != nil {
		return fail("rename", err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes the rename durable where the platform allows it; a failure
// only loses durability across a crash, never the file's integrity.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
