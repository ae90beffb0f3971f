// Package browser_test renders mcpconform's HTML report in headless
// Chromium and checks what a person sees in it. It is a module of its own,
// so that the browser driver (chromedp) is no dependency of mcpconform's:
// .ci/run installs Debian's chromium and runs it.
//
// The tests build mcpconform from the enclosing checkout and run it against
// the reference implementations, so the pages they read are those a user
// gets. Without chromium they skip, unless CI=true, where they fail.
//
//	go test ./...                           in browser/
//	go test ./... -run Failing -update      also rewrites ../docs/report-failing.png
package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Deadlines: a run of mcpconform, the browser's start and page load, and
// each wait for what the page shows after an action.
const (
	runDeadline    = 3 * time.Minute
	loadDeadline   = time.Minute
	actionDeadline = 20 * time.Second
)

// mcpconformBin is the mcpconform binary TestMain builds.
var mcpconformBin string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "mcpconform-browser-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	mcpconformBin = filepath.Join(dir, "mcpconform")
	ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", mcpconformBin, "./cmd/mcpconform")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building mcpconform from the checkout above browser/: %v\n%s", err, out)
		return 2
	}
	return m.Run()
}

// chromium is the browser's path: $MCPCONFORM_CHROMIUM, Debian's
// /usr/bin/chromium, or chromium or google-chrome on PATH. Without one the
// test skips, or fails when CI=true (CI installs it: .ci/chromium).
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("MCPCONFORM_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const how = "install it with `apt-get install -y chromium` (what .ci/chromium does) or name it in MCPCONFORM_CHROMIUM"
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium not found, and CI=true: .ci/run installs it before this test; " + how)
	}
	t.Skip("chromium not found, so the HTML report is not rendered; " + how)
	return ""
}

// mcpconform runs the built mcpconform with args in dir, wants one of the
// exit statuses want, and returns its standard output.
func mcpconform(t *testing.T, dir string, want []int, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, mcpconformBin, args...)
	// At the deadline SIGTERM first, so mcpconform tears its targets down
	// and writes what it has; a pipe a leftover still holds is not waited
	// for past WaitDelay.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("mcpconform %s: %v", strings.Join(args, " "), err)
	}
	if !slices.Contains(want, code) {
		t.Fatalf("mcpconform %s: exit status %d, want one of %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}

// report is what the tests read of a JSON report.
type report struct {
	Scores map[string]struct{ Pass, Total int } `json:"scores"`
	Checks []reportCheck                        `json:"checks"`
}

type reportCheck struct {
	ID         string   `json:"id"`
	Outcome    string   `json:"outcome"`
	Role       string   `json:"role"`
	Transport  string   `json:"transport"`
	Transports []string `json:"transports"`
	Eras       []string `json:"eras"`
	Rules      []string `json:"rules"`
	Message    string   `json:"message"`
	Transcript []string `json:"transcript"`
}

// check returns the check with the ID.
func (r *report) check(id string) reportCheck {
	i := slices.IndexFunc(r.Checks, func(c reportCheck) bool { return c.ID == id })
	if i < 0 {
		return reportCheck{}
	}
	return r.Checks[i]
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// score is a profile's score as the page writes it: "19/21".
func (r *report) score(name string) string {
	s := r.Scores[name]
	return fmt.Sprintf("%d/%d", s.Pass, s.Total)
}

// count returns how many checks have the outcome.
func (r *report) count(outcome string) int {
	n := 0
	for _, c := range r.Checks {
		if c.Outcome == outcome {
			n++
		}
	}
	return n
}

// page is a report open in a browser tab.
type page struct {
	t        *testing.T
	ctx      context.Context
	url      string
	mu       sync.Mutex
	problems []string // script exceptions, console errors, CSP violations
	requests []string // every URL the page asked for
}

// The page's viewport: a laptop's screen, and the README's screenshot.
const viewportWidth, viewportHeight = 1280, 960

// open serves dir on 127.0.0.1 and opens name in a fresh headless
// Chromium (its own profile directory) with the viewport above. It waits
// for the page's script to have run: the filters, hidden without it, show.
func open(t *testing.T, dir, name string) *page {
	t.Helper()
	bin := chromium(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	var output bytes.Buffer
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(bin),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(viewportWidth, viewportHeight),
		chromedp.CombinedOutput(&output),
	)
	ctx, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		if t.Failed() {
			t.Logf("chromium's output:\n%s", output.String())
		}
	})
	p := &page{t: t, ctx: ctx, url: srv.URL + "/" + name}
	// The browser starts with this first call, under no deadline of its own
	// (a deadline on it would end the browser); the load below has one.
	if err := chromedp.Listen(ctx, p.watch); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	load, cancel := context.WithTimeout(ctx, loadDeadline)
	defer cancel()
	if err := chromedp.Do(load, chromedp.EmulateViewport(viewportWidth, viewportHeight), chromedp.Navigate(p.url), chromedp.WaitVisible(chromedp.CSS("#filters"))); err != nil {
		t.Fatalf("loading %s: %v (problems: %v)", p.url, err, p.problems)
	}
	return p
}

// watch records what the page must not do: throw, log an error (a blocked
// script or style is one), or ask for anything but itself.
func (p *page) watch(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		what := d.Text
		if d.Exception != nil {
			what += " " + d.Exception.Description
		}
		p.problems = append(p.problems, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, what))
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
			p.problems = append(p.problems, fmt.Sprintf("console.%s: %v", e.Type, e.Args))
		}
	case *log.EventEntryAdded:
		if e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning {
			p.problems = append(p.problems, fmt.Sprintf("%s %s: %s", e.Entry.Source, e.Entry.Level, e.Entry.Text))
		}
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, e.Request.URL)
	}
}

// do runs actions with the action deadline.
func (p *page) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionDeadline)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression and decodes its value into v.
func (p *page) eval(js string, v any) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionDeadline)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](js))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v", js, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		p.t.Fatalf("evaluating %s: %v (%s)", js, err, raw)
	}
}

// waitFor waits, within the action deadline, until the JavaScript
// predicate holds.
func (p *page) waitFor(what, predicate string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionDeadline)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(actionDeadline))); err != nil {
		p.t.Fatalf("waiting until %s (%s): %v", what, predicate, err)
	}
}

// screenshot captures the window.
func (p *page) screenshot() []byte {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, actionDeadline)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.t.Fatalf("screenshot: %v", err)
	}
	return png
}

// checkClean fails the test if the page threw, logged an error or asked
// for anything but itself.
func (p *page) checkClean() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pr := range p.problems {
		p.t.Errorf("the page reported a problem: %s", pr)
	}
	for _, u := range p.requests {
		if u != p.url && !strings.HasPrefix(u, "data:") {
			p.t.Errorf("the page asked for %s; a report fetches nothing", u)
		}
	}
}

// js quotes s as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
