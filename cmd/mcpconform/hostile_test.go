package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// Bounds every hostile run of TestHostileTargets is held to.
const (
	hostileBudget  = 8 * time.Second // --run-timeout
	hostileMaxRSS  = 256 << 20       // the harness's peak resident memory
	hostileSecret  = "HOSTILE-SECRET-9d1c"
	hostileProbeTO = "1s"
)

// TestHostileTargets runs mcpconform server against targets that do
// their worst. Each run ends within its stated budget and the shutdown
// grace, leaves no process behind, holds the harness's memory under a
// bound, and shows no planted secret anywhere it writes.
func TestHostileTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile targets take a while")
	}
	serveCmd := strings.Join(selfexec.Command("serve", "--transport", "stdio"), " ")
	gib := "head -c 1073741824 /dev/zero"
	stdio := []struct{ name, script string }{
		{"never answers", "echo " + hostileSecret + " >&2; exec " + sleepFor(1060)},
		{"answers once then wedges", `read l; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"w","version":"1"}}}'; exec ` + sleepFor(1061)},
		{"grandchildren leave and ignore SIGTERM", "setsid sh -c 'trap \"\" TERM; " + sleepFor(1062) + "' </dev/null >/dev/null 2>&1 & exec " + serveCmd},
		{"floods 1 GiB of stderr", "(echo " + hostileSecret + "; " + gib + ") >&2 & exec " + serveCmd},
		{"writes a 1 GiB line", gib + " | tr '\\0' x; exec " + sleepFor(1063)},
	}
	for _, tc := range stdio {
		t.Run("stdio "+tc.name, func(t *testing.T) {
			t.Parallel()
			// In a file: the command line, which reports name, must not
			// hold the secret the server writes to stderr.
			script := filepath.Join(t.TempDir(), "server.sh")
			if err := os.WriteFile(script, []byte(tc.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			hostileRun(t, "--", "sh", script)
		})
	}
	t.Cleanup(func() {
		if left := processesRunning(sleepFor(1060), sleepFor(1061), sleepFor(1062), sleepFor(1063)); len(left) > 0 {
			t.Errorf("left running after every run: %v", left)
		}
	})
	for name, h := range map[string]http.HandlerFunc{
		"endless SSE stream": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for r.Context().Err() == nil {
				if _, err := fmt.Fprint(w, ": keep-alive\n\ndata: {}\n\n"); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		},
		"1 GiB body": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			chunk := []byte(strings.Repeat(" ", 1<<20))
			for i := 0; i < 1024 && r.Context().Err() == nil; i++ {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		},
	} {
		t.Run("http "+name, func(t *testing.T) {
			t.Parallel()
			srv := &http.Server{Handler: h}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			go srv.Serve(ln)
			defer srv.Close()
			hostileRun(t, "--url", "http://u:"+hostileSecret+"@"+ln.Addr().String()+"/mcp?token="+hostileSecret)
		})
	}
	t.Run("http accepts and never answers", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
			}
		}()
		hostileRun(t, "--url", "http://u:"+hostileSecret+"@"+ln.Addr().String()+"/mcp?token="+hostileSecret)
	})
}

// hostileRun runs mcpconform server in a child with args and judges it.
func hostileRun(t *testing.T, args ...string) {
	t.Helper()
	dir := t.TempDir()
	json := filepath.Join(dir, "r.json")
	html := filepath.Join(dir, "r.html")
	argv := selfexec.Command("server", append([]string{"--no-color", "--run-timeout", hostileBudget.String(), "--probe-timeout", hostileProbeTO,
		"--timeout", "3s", "--json", json, "--html", html}, args...)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	code := exitCode(err)
	if code != 0 && code != 1 && code != 2 {
		t.Errorf("exit %d, want 0, 1 or 2\n%s", code, tail(out.String()))
	}
	if limit := hostileBudget + 10*time.Second; took > limit {
		t.Errorf("took %s, over the budget %s and the shutdown", took, hostileBudget)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss*1024 > hostileMaxRSS {
		t.Errorf("the harness peaked at %d MiB resident, over %d MiB", ru.Maxrss/1024, hostileMaxRSS>>20)
	}
	// Each stdio script's sleeps are its own: sleepFor(1060) … sleepFor(1063).
	for _, a := range args {
		if b, err := os.ReadFile(a); err == nil {
			for _, marker := range sleepMarker.FindAllString(string(b), -1) {
				if left := processesRunning(marker); len(left) > 0 {
					t.Errorf("left running: %v", left)
				}
			}
		}
	}
	written := out.String()
	for _, f := range []string{json, html} {
		if b, err := os.ReadFile(f); err == nil {
			written += string(b)
		}
	}
	if strings.Contains(written, hostileSecret) {
		t.Errorf("the planted secret %q appears in the output or a report", hostileSecret)
	}
	t.Logf("exit %d in %s", code, took.Round(time.Millisecond))
}

var sleepMarker = regexp.MustCompile(`sleep 106\d\.\d{7}`)

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return strings.Join(lines, "\n")
}
