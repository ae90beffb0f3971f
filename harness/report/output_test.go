package report

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out", "report.json")
	for _, content := range []string{"first version, longer", "second"} {
		if err := WriteFile(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, path); got != content {
			t.Errorf("content = %q, want %q", got, content)
		}
	}
	if got := dirEntries(t, filepath.Join(dir, "out")); !reflect.DeepEqual(got, []string{"report.json"}) {
		t.Errorf("directory holds %v, want only report.json", got)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
}

func TestWriteFilePathIsDirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.html")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(target, []byte("x"))
	if err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	wantContains(t, err.Error(), target, "is a directory", "name a file")
	if got := dirEntries(t, dir); !reflect.DeepEqual(got, []string{"report.html"}) {
		t.Errorf("directory holds %v after the failure", got)
	}
	if got := dirEntries(t, target); len(got) != 0 {
		t.Errorf("the directory named by path holds %v", got)
	}
}

func TestWriteFileParentIsAFile(t *testing.T) {
	dir := t.TempDir()
	parent := writeFile(t, dir, "plain", "keep")
	err := WriteFile(filepath.Join(parent, "report.json"), []byte("x"))
	if err == nil {
		t.Fatal("writing under a file succeeded")
	}
	wantContains(t, err.Error(), parent, "writable directory")
	if got := readFile(t, parent); got != "keep" {
		t.Errorf("the file in the way was changed to %q", got)
	}
}

func TestWriteFileUnwritableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes to read-only directories; TestWriteFileParentIsAFile covers the failure path")
	}
	dir := t.TempDir()
	path := writeFile(t, dir, "report.md", "previous")
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	err := WriteFile(path, []byte("new"))
	if err == nil {
		t.Fatal("writing into a read-only directory succeeded")
	}
	wantContains(t, err.Error(), path, "writable directory")
	if got := readFile(t, path); got != "previous" {
		t.Errorf("previous report changed to %q", got)
	}
	if got := dirEntries(t, dir); !reflect.DeepEqual(got, []string{"report.md"}) {
		t.Errorf("directory holds %v", got)
	}
}

// deviceNode returns a character device like /dev/NAME (major, minor) that
// a test may write through: made in a temporary directory when this process
// may make device nodes, else the real one when this process cannot replace
// it (a regression must not harm the machine); otherwise the test is skipped.
func deviceNode(t *testing.T, name string, major, minor uint32) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := unix.Mknod(p, unix.S_IFCHR|0o666, int(unix.Mkdev(major, minor))); err == nil {
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
			return p
		}
	}
	if unix.Access("/dev", unix.W_OK) != nil {
		return "/dev/" + name
	}
	t.Skipf("cannot make a device node here, and /dev/%s could be replaced by a regression", name)
	return ""
}

// wantSameNode fails unless path is still the node before was (same inode,
// same type): written through, not replaced.
func wantSameNode(t *testing.T, path string, before os.FileInfo) {
	t.Helper()
	after, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || before.Mode().Type() != after.Mode().Type() {
		t.Errorf("%s was replaced: %v, now %v", path, before.Mode(), after.Mode())
	}
}

func lstat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

func TestWriteFileThroughCharacterDevice(t *testing.T) {
	null := deviceNode(t, "null", 1, 3)
	before := lstat(t, null)
	if err := WriteFile(null, []byte("report")); err != nil {
		t.Fatal(err)
	}
	wantSameNode(t, null, before)
	if err := CheckWritable(null); err != nil {
		t.Errorf("CheckWritable(%s) = %v", null, err)
	}
}

func TestWriteFileDeviceErrorNamesPathAndWayOut(t *testing.T) {
	full := deviceNode(t, "full", 1, 7)
	before := lstat(t, full)
	err := WriteFile(full, []byte("report"))
	if err == nil {
		t.Fatal("writing to a full device succeeded")
	}
	wantContains(t, err.Error(), full, "a character device", "no space left", "name a regular file")
	wantSameNode(t, full, before)
}

// readFIFO reads path to its end in a goroutine; the channel gives what was
// read, or nothing if the writer never came within the test's deadline.
func readFIFO(t *testing.T, path string) <-chan string {
	t.Helper()
	got := make(chan string, 1)
	t.Cleanup(func() { // a reader still waiting for a writer gets one and ends
		if f, err := os.OpenFile(path, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			got <- "read: " + err.Error()
			return
		}
		got <- string(b)
	}()
	return got
}

func mkfifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "report.fifo")
	if err := unix.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWriteFileThroughFIFO(t *testing.T) {
	fifo := mkfifo(t)
	before := lstat(t, fifo)
	if err := CheckWritable(fifo); err != nil { // opens nothing: returns though no reader is there
		t.Fatal(err)
	}
	got := readFIFO(t, fifo)
	data := strings.Repeat("a report larger than a pipe's buffer\n", 1<<13)
	if err := (Writer{Wait: 10 * time.Second}).WriteFile(fifo, []byte(data)); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != data {
			t.Errorf("the reader got %d bytes, want the %d written", len(s), len(data))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the reader got nothing within 10s")
	}
	wantSameNode(t, fifo, before)
}

func TestWriteFileFIFOWaitsAreBounded(t *testing.T) {
	fifo := mkfifo(t)
	w := Writer{Wait: 100 * time.Millisecond}
	err := w.WriteFile(fifo, []byte("report"))
	if err == nil {
		t.Fatal("writing to a FIFO nobody reads succeeded")
	}
	wantContains(t, err.Error(), fifo, "a FIFO", "no reader opened it within 100ms", "start its reader first")

	// A reader that opens the FIFO and takes nothing: the write gives up.
	r, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = w.WriteFile(fifo, make([]byte, 1<<20))
	if err == nil {
		t.Fatal("writing 1 MiB to a reader that reads nothing succeeded")
	}
	wantContains(t, err.Error(), fifo, "its reader took nothing for 100ms")
}

func TestWriteFileFollowsSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := writeFile(t, dir, "real.json", "old")
	if err := os.Mkdir(filepath.Join(dir, "links"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "links", "report.json")
	chain := filepath.Join(dir, "chain.json")
	dangling := filepath.Join(dir, "links", "new.json")
	for l, to := range map[string]string{link: "../real.json", chain: link, dangling: "../made/new.json"} {
		if err := os.Symlink(to, l); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ path, target, data string }{
		{link, target, "through a relative link"},
		{chain, target, "through two links"},
		{dangling, filepath.Join(dir, "made", "new.json"), "to a link's new target"},
	} {
		before := lstat(t, tc.path)
		// A link into a directory not made yet is refused before a run
		// (the user makes it); WriteFile itself makes it.
		switch err := CheckWritable(tc.path); {
		case tc.path == dangling && (err == nil || !strings.Contains(err.Error(), "create the directory first")):
			t.Errorf("CheckWritable(%s) = %v, want the refusal that names the way out", tc.path, err)
		case tc.path != dangling && err != nil:
			t.Errorf("CheckWritable(%s) = %v", tc.path, err)
		}
		if err := WriteFile(tc.path, []byte(tc.data)); err != nil {
			t.Fatal(err)
		}
		wantSameNode(t, tc.path, before)
		if got := readFile(t, tc.target); got != tc.data {
			t.Errorf("%s holds %q, want %q", tc.target, got, tc.data)
		}
	}
	if got := dirEntries(t, dir); !reflect.DeepEqual(got, []string{"chain.json", "links", "made", "real.json"}) {
		t.Errorf("directory holds %v", got)
	}
}

// TestWriteFileStandardOutput: /dev/stdout, /dev/fd/1, /proc/self/fd/1 and
// links to them are this process's standard output, written as it is. The
// /dev paths are reached through links in a temporary directory, so that a
// regression replaces a link of the test, never a node of the machine.
func TestWriteFileStandardOutput(t *testing.T) {
	dir := t.TempDir()
	paths := []string{"/proc/self/fd/1"}
	for i, to := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"} {
		link := filepath.Join(dir, fmt.Sprint("out", i))
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, link)
	}
	for _, path := range paths {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout := os.Stdout
		os.Stdout = w
		err = WriteFile(path, []byte("report via "+path))
		os.Stdout = stdout
		w.Close()
		if err != nil {
			t.Errorf("%s: %v", path, err)
		}
		b, _ := io.ReadAll(r)
		r.Close()
		if string(b) != "report via "+path {
			t.Errorf("%s: standard output got %q", path, b)
		}
	}
}

// TestDescriptorPathsResolveToTheStream: the descriptor paths of standard
// output and error, as named, lead to the streams themselves (resolve opens
// and writes nothing).
func TestDescriptorPathsResolveToTheStream(t *testing.T) {
	for path, want := range map[string]*os.File{
		"/dev/stdout": os.Stdout, "/dev/fd/1": os.Stdout, "/proc/self/fd/1": os.Stdout, "/proc/thread-self/fd/1": os.Stdout,
		fmt.Sprintf("/proc/%d/fd/1", os.Getpid()): os.Stdout,
		"/dev/stderr": os.Stderr, "/dev/fd/2": os.Stderr, "/proc/self/fd/2": os.Stderr,
	} {
		d, err := resolve(path)
		if err != nil || d.kind != destStd || d.std != want {
			t.Errorf("resolve(%s) = %+v, %v; want %s", path, d, err, want.Name())
		}
	}
}

// TestWriteFileDescriptor: a descriptor path other than 1 and 2 is opened
// through /proc, the pipe it names written, not replaced.
func TestWriteFileDescriptor(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	if err := WriteFile(path, []byte("report")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if b, _ := io.ReadAll(r); string(b) != "report" {
		t.Errorf("the pipe got %q", b)
	}
}

func TestCheckWritableRefusesWhatCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Symlink(dir, filepath.Join(dir, "dirlink")); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		dir:                           "is a directory; name a file inside it",
		filepath.Join(dir, "dirlink"): "is a directory",
		filepath.Join(dir, "sock"):    "is a socket",
		filepath.Join(dir, "no", "r"): "create the directory first",
	} {
		err := CheckWritable(path)
		if err == nil {
			t.Errorf("CheckWritable(%s) accepted it", path)
			continue
		}
		wantContains(t, err.Error(), path, want)
	}
}
