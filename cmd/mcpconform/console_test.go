package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	sysunix "golang.org/x/sys/unix"

	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Two quick client checks of the reference, one per transport.
const (
	stdioCheck = "stdio.client.stdin.only-jsonrpc"
	httpCheck  = "http.client.post.accept-both"
	grandchild = "stdio.client.process-group.grandchild"
)

var (
	checkLine = regexp.MustCompile(`(?m)^([A-Z/]+) +(\S+)  \d+\.\d\ds$`)
	sgr       = regexp.MustCompile(`\x1b\[[0-9;]*m`)
)

// TestConsoleOffATerminal: a run whose output is a pipe prints one plain
// line per finished check (outcome, ID, time) and not one escape code,
// serial or parallel; nothing of Ginkgo's own console reaches it, and the
// last line, the verdict, says what the exit status says.
func TestConsoleOffATerminal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		lines   map[string]string
		verdict string
	}{
		{"serial", []string{"--only", stdioCheck + "," + httpCheck, "--parallel", "1"}, 0,
			map[string]string{stdioCheck: "PASS", httpCheck: "PASS"}, "PASS: every required check passed (exit 0)"},
		{"parallel", []string{"--only", stdioCheck + "," + httpCheck, "--parallel", "2"}, 0,
			map[string]string{stdioCheck: "PASS", httpCheck: "PASS"}, "PASS: every required check passed (exit 0)"},
		{"failing", append([]string{"--only", stdioCheck + "," + grandchild, "--parallel", "1", "--profile", "hardened", "--"}, run.ReferenceAdapter(mutant.NoProcessGroup)...), 1,
			map[string]string{stdioCheck: "PASS", grandchild: "FAIL"}, "FAIL: 1 check failed (exit 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, b := runChild("client", tc.args...)
			out := string(b)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, out)
			}
			if strings.ContainsRune(out, '\x1b') {
				t.Errorf("the output holds escape codes:\n%q", out)
			}
			got := map[string]string{}
			for _, m := range checkLine.FindAllStringSubmatch(out, -1) {
				if _, twice := got[m[2]]; twice {
					t.Errorf("%s has two lines", m[2])
				}
				got[m[2]] = m[1]
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.lines) {
				t.Errorf("lines of finished checks %v, want %v\n%s", got, tc.lines, out)
			}
			for _, ginkgo := range []string{"Ran ", "SUCCESS!", "FAIL!", "Specs", "•"} {
				if strings.Contains(out, ginkgo) {
					t.Errorf("Ginkgo's console shows through (%q):\n%s", ginkgo, out)
				}
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if last := lines[len(lines)-1]; last != tc.verdict {
				t.Errorf("last line %q, want %q", last, tc.verdict)
			}
		})
	}
}

// TestColorFlag: off a terminal --color always paints the outcomes;
// --no-color is --color never.
func TestColorFlag(t *testing.T) {
	code, out := runChild("client", "--only", stdioCheck, "--parallel", "1", "--color", "always")
	if code != 0 || !bytes.Contains(out, []byte("\x1b[32mPASS\x1b[0m")) {
		t.Errorf("--color always: exit %d, no green PASS:\n%q", code, out)
	}
	code, out = runChild("client", "--only", stdioCheck, "--parallel", "1", "--color", "always", "--no-color")
	if code != 0 || bytes.ContainsRune(out, '\x1b') {
		t.Errorf("--no-color: exit %d, escape codes:\n%q", code, out)
	}
}

// TestConsoleOnATerminal runs the CLI on a pseudo-terminal: the live line
// is drawn (and redrawn in place) with the count per outcome, in colour
// unless NO_COLOR is set; a passing check gets no line of its own.
func TestConsoleOnATerminal(t *testing.T) {
	for _, noColor := range []string{"", "1"} {
		t.Run("NO_COLOR="+noColor, func(t *testing.T) {
			out := runOnTerminal(t, noColor, "client", "--only", stdioCheck+","+httpCheck, "--parallel", "1")
			if !strings.Contains(out, "\r\x1b[2K") {
				t.Fatalf("no live line drawn:\n%q", out)
			}
			plain := sgr.ReplaceAllString(out, "")
			if !strings.Contains(plain, "2/2  PASS 2 · ") {
				t.Errorf("the live line does not count two passes:\n%q", out)
			}
			if checkLine.MatchString(strings.ReplaceAll(plain, "\r", "\n")) {
				t.Errorf("a passing check has a line of its own on a terminal:\n%q", out)
			}
			if colour := sgr.MatchString(out); colour != (noColor == "") {
				t.Errorf("colour %v with NO_COLOR=%q:\n%q", colour, noColor, out)
			}
		})
	}
}

// runOnTerminal runs a command of the CLI with its stdout and stderr on a
// pseudo-terminal 200 columns wide and returns what it wrote.
func runOnTerminal(t *testing.T, noColor string, command string, args ...string) string {
	t.Helper()
	master, tty := openPTY(t)
	defer master.Close()
	argv := selfexec.Command(command, args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = tty, tty
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "NO_COLOR=") || strings.HasPrefix(kv, "TERM=")
	})
	cmd.Env = append(cmd.Env, "TERM=xterm", "NO_COLOR="+noColor)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var out bytes.Buffer
	read := make(chan struct{})
	go func() {
		_, _ = io.Copy(&out, master) // until EIO: the child closed the terminal
		close(read)
	}()
	err := cmd.Wait()
	<-read
	if code := exitCode(err); code != 0 {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	return out.String()
}

// openPTY opens a pseudo-terminal pair (Linux), the terminal 200 columns
// wide.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|sysunix.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	fd := int(master.Fd())
	if err := sysunix.IoctlSetPointerInt(fd, sysunix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := sysunix.IoctlGetInt(fd, sysunix.TIOCGPTN)
	if err != nil {
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|sysunix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := sysunix.IoctlSetWinsize(int(tty.Fd()), sysunix.TIOCSWINSZ, &sysunix.Winsize{Col: 200, Row: 50}); err != nil {
		t.Fatal(err)
	}
	return master, tty
}
