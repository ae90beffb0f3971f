package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sysunix "golang.org/x/sys/unix"

	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// quickServerRun runs one check of the reference server in a child process
// with the report flags given, at most a minute, and returns its exit status
// with what it wrote to its standard output and error.
func quickServerRun(t *testing.T, reportFlags ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	argv := selfexec.Command("server", append([]string{"--no-color", "--only", "server.ping.after-initialize"}, reportFlags...)...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the run took over a minute:\n%s%s", stdout.String(), stderr.String())
	}
	return exitCode(err), stdout.String(), stderr.String()
}

// charDevice returns a character device (major, minor) the run may write
// through: made in a temporary directory where this process may make device
// nodes, else /dev/NAME when this process could not replace it anyway (a
// regression must not harm the machine); otherwise the test is skipped.
func charDevice(t *testing.T, name string, major, minor uint32) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if sysunix.Mknod(p, sysunix.S_IFCHR|0o666, int(sysunix.Mkdev(major, minor))) == nil && sysunix.Access(p, sysunix.W_OK) == nil {
		return p
	}
	if sysunix.Access("/dev", sysunix.W_OK) != nil {
		return "/dev/" + name
	}
	t.Skipf("cannot make a device node here, and a regression could replace /dev/%s", name)
	return ""
}

func lstatNode(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// TestReportPathsThatAreNotFilesAreWrittenThrough: a run's reports go through
// a character device (as /dev/null), /dev/stdout, a FIFO and a symbolic link
// and leave each node as it was. Where this process could replace /dev's
// nodes, the device is one of the test's own and /dev/stdout is reached
// through a link of the test's.
func TestReportPathsThatAreNotFilesAreWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	null := charDevice(t, "null", 1, 3)
	fifo := filepath.Join(dir, "report.fifo")
	if err := sysunix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(target, []byte("the previous summary"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("summary.md", link); err != nil {
		t.Fatal(err)
	}
	stdout := "/dev/stdout"
	if sysunix.Access("/dev", sysunix.W_OK) == nil { // a regression must replace a link of the test, not /dev/stdout
		stdout = filepath.Join(dir, "stdout")
		if err := os.Symlink("/dev/stdout", stdout); err != nil {
			t.Fatal(err)
		}
	}
	before := map[string]os.FileInfo{null: lstatNode(t, null), fifo: lstatNode(t, fifo), link: lstatNode(t, link), stdout: lstatNode(t, stdout)}

	html := make(chan string, 1)
	t.Cleanup(func() { // a reader still waiting for a writer gets one and ends
		if f, err := os.OpenFile(fifo, os.O_WRONLY|sysunix.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			html <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		html <- string(b)
	}()

	code, stdout, stderr := quickServerRun(t, "--junit", null, "--json", stdout, "--html", fifo, "--markdown", link)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, stdout, stderr)
	}
	for path, fi := range before {
		if now := lstatNode(t, path); !os.SameFile(fi, now) || fi.Mode().Type() != now.Mode().Type() {
			t.Errorf("%s was replaced: %v, now %v", path, fi.Mode(), now.Mode())
		}
	}
	start, end := strings.Index(stdout, "\n{\n"), strings.Index(stdout, "\n}\n")
	var ix report.Index
	if start < 0 || end < start || json.Unmarshal([]byte(stdout[start:end+2]), &ix) != nil || len(ix.Checks) == 0 {
		t.Errorf("no JSON report on standard output:\n%s", stdout)
	}
	select {
	case page := <-html:
		if !strings.Contains(page, "server.ping.after-initialize") || !strings.HasSuffix(strings.TrimSpace(page), "</html>") {
			t.Errorf("the FIFO's reader got no whole HTML report (%d bytes)", len(page))
		}
	case <-time.After(10 * time.Second):
		t.Error("the FIFO's reader got nothing within 10s of the run's end")
	}
	if b, err := os.ReadFile(target); err != nil || !strings.Contains(string(b), "server.ping.after-initialize") {
		t.Errorf("the link's target holds %q (%v), want the Markdown report", b, err)
	}
}

// TestReportThroughAFullDeviceIsAnError: a write that fails through a device
// is exit 2 with the path and the way out.
func TestReportThroughAFullDeviceIsAnError(t *testing.T) {
	full := charDevice(t, "full", 1, 7)
	code, stdout, stderr := quickServerRun(t, "--markdown", full)
	if code != 2 {
		t.Errorf("exit %d, want 2\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{full, "no space left on device", "name a regular file"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not name %q:\n%s", want, stderr)
		}
	}
}
