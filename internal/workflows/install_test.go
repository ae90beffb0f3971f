package workflows

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// released is the version the tests publish on their loopback release server.
const released = "v0.4.0"

// actionRun runs the action's steps one after another as the runner does for
// one use of the action: each step's env evaluated from the inputs (the
// action's defaults for the others) and the outputs of the steps before it.
type actionRun struct {
	t       *testing.T
	inputs  map[string]string
	runner  map[string]string // the runner's variables: RUNNER_TEMP, GITHUB_ACTION_PATH
	outputs map[string]map[string]string
}

func newActionRun(t *testing.T, inputs map[string]string) *actionRun {
	t.Helper()
	a, _ := action(t)
	all := map[string]string{}
	for name, in := range a.Inputs {
		if in.Default != nil {
			all[name] = *in.Default
		}
	}
	for name, v := range inputs {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("action.yml has no input %q", name)
		}
		all[name] = v
	}
	path, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	return &actionRun{t: t, inputs: all, outputs: map[string]map[string]string{}, runner: map[string]string{
		"RUNNER_TEMP": t.TempDir(), "GITHUB_ACTION_PATH": path,
		// Loopback only, whatever proxy the machine names.
		"NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1",
	}}
}

// expression is the one form of expression the install steps' env uses.
var expression = regexp.MustCompile(`^\$\{\{ (?:inputs\.([\w-]+)|steps\.([\w-]+)\.outputs\.([\w-]+)) \}\}$`)

// step runs the action's step id and returns its outputs, its log and its
// error.
func (r *actionRun) step(id string) (map[string]string, string, error) {
	r.t.Helper()
	s := actionStep(r.t, id)
	env := map[string]string{}
	for k, v := range r.runner {
		env[k] = v
	}
	for k, v := range s.Env {
		m := expression.FindStringSubmatch(v)
		switch {
		case m == nil && strings.Contains(v, "${{"):
			r.t.Fatalf("action.yml: step %q: env %s is %q, an expression this test does not evaluate", id, k, v)
		case m == nil:
			env[k] = v
		case m[1] != "":
			env[k] = r.inputs[m[1]]
		default:
			env[k] = r.outputs[m[2]][m[3]]
		}
	}
	out, _, log, err := runStepLog(r.t, s, env)
	r.outputs[id] = out
	return out, log, err
}

// release is a loopback server in the layout of the GitHub releases: the
// archive and checksums of each version under /releases/download/TAG/, and
// /releases/latest redirecting to the latest tag's page.
type release struct {
	*httptest.Server
	mu       sync.Mutex
	files    map[string][]byte
	latest   string
	requests map[string]int
}

func newRelease(t *testing.T) *release {
	r := &release{files: map[string][]byte{}, requests: map[string]int{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.requests[req.URL.Path]++
		switch {
		case req.URL.Path == "/releases/latest" && r.latest != "":
			http.Redirect(w, req, "/releases/tag/"+r.latest, http.StatusFound)
		case req.URL.Path == "/releases/tag/"+r.latest:
			fmt.Fprintf(w, "<html>release %s</html>", r.latest)
		case r.files[req.URL.Path] != nil: // a file put as nil is removed
			w.Write(r.files[req.URL.Path])
		default:
			http.NotFound(w, req)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *release) baseURL() string { return r.URL + "/releases/download" }

func (r *release) put(path string, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files[path] = data
}

func (r *release) markLatest(tag string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latest = tag
}

func (r *release) count(path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests[path]
}

// archiveName is the name .goreleaser.yaml gives the archive of tag for this
// machine.
func archiveName(tag string) string {
	return fmt.Sprintf("mcpconform_%s_%s_%s.tar.gz", strings.TrimPrefix(tag, "v"), runtime.GOOS, runtime.GOARCH)
}

func checksumsName(tag string) string {
	return fmt.Sprintf("mcpconform_%s_checksums.txt", strings.TrimPrefix(tag, "v"))
}

// pack makes a release archive as GoReleaser does: the binary and the README
// at the archive's root.
func pack(t *testing.T, bin string) []byte {
	t.Helper()
	exe, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"README.md", 0o644, []byte("# mcpconform\n")}, {"mcpconform", 0o755, exe}} {
		hdr := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// publish puts tag's archive and a checksums file over it (and another
// platform's archive, listed first) on the server.
func (r *release) publish(tag string, archive []byte) {
	sum := fmt.Sprintf("%x", sha256.Sum256(archive))
	other := fmt.Sprintf("%x", sha256.Sum256([]byte("another platform")))
	sums := fmt.Sprintf("%s  mcpconform_%s_plan9_mips.tar.gz\n%s  %s\n", other, strings.TrimPrefix(tag, "v"), sum, archiveName(tag))
	r.put("/releases/download/"+tag+"/"+archiveName(tag), archive)
	r.put("/releases/download/"+tag+"/"+checksumsName(tag), []byte(sums))
}

// binaries lists every file named mcpconform under dir.
func binaries(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == "mcpconform" && !d.IsDir() {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func wantExit(t *testing.T, err error, code int, log string) {
	t.Helper()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != code {
		t.Errorf("step error %v, want exit status %d; log:\n%s", err, code, log)
	}
}

func wantLog(t *testing.T, log string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(log, w) {
			t.Errorf("the step's log does not say %q; log:\n%s", w, log)
		}
	}
}

func needTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"bash", "curl", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH", tool)
		}
	}
}

// TestActionInstallSteps holds the action to its install order: resolve the
// version, restore the cache of a release, set up Go only to build from
// source, then install; no go install of its own outside the script.
func TestActionInstallSteps(t *testing.T) {
	_, steps := action(t)
	at := func(pred func(Step) bool) int { return slices.IndexFunc(steps, pred) }
	resolve := at(func(s Step) bool { return s.ID == "resolve" })
	install := at(func(s Step) bool { return s.ID == "install" })
	cache := at(func(s Step) bool { return strings.HasPrefix(s.Uses, "actions/cache@") })
	setupGo := at(func(s Step) bool { return strings.HasPrefix(s.Uses, "actions/setup-go@") })
	if resolve < 0 || install < 0 || cache < 0 || setupGo < 0 {
		t.Fatalf("action.yml: steps resolve %d, cache %d, setup-go %d, install %d: want each", resolve, cache, setupGo, install)
	}
	if !(resolve < cache && cache < install && resolve < setupGo && setupGo < install) {
		t.Errorf("action.yml: steps resolve %d, cache %d, setup-go %d, install %d: want resolve, then the cache and setup-go, then install", resolve, cache, setupGo, install)
	}
	c := steps[cache]
	if !strings.Contains(c.If, "steps.resolve.outputs.kind == 'release'") || c.With["path"] != "${{ steps.resolve.outputs.dir }}" || c.With["key"] != "${{ steps.resolve.outputs.cache-key }}" {
		t.Errorf("action.yml: the cache step (if %q, with %v) must cache a release's dir under resolve's cache-key", c.If, c.With)
	}
	if !strings.Contains(steps[setupGo].If, "steps.resolve.outputs.kind == 'source'") {
		t.Errorf("action.yml: setup-go runs if %q; want it only for a build from source", steps[setupGo].If)
	}
	for _, s := range steps {
		if strings.Contains(s.Run, "go install") {
			t.Errorf("action.yml: step %q runs go install itself; .github/actions/install.sh decides when to build", s.Name)
		}
	}
}

// TestInstallFromRelease runs the action's install steps, the script they
// run unchanged, against a release served on 127.0.0.1: the binary is
// downloaded, verified and run; a tampered archive, a checksums file without
// its entry and an unreleased version are exit status 2 and leave no binary.
func TestInstallFromRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpconform")
	}
	needTools(t)
	bin := mcpconformBinary(t, "-ldflags", "-X main.Version="+released)
	archive := pack(t, bin)

	t.Run("a release is downloaded, verified, cached and run", func(t *testing.T) {
		rel := newRelease(t)
		rel.publish(released, archive)
		run := newActionRun(t, map[string]string{"version": released, "base-url": rel.baseURL()})
		out, log, err := run.step("resolve")
		if err != nil {
			t.Fatalf("resolve: %v\n%s", err, log)
		}
		want := map[string]string{"kind": "release", "version": released, "os": runtime.GOOS, "arch": runtime.GOARCH,
			"cache-key": "mcpconform-" + released + "-" + runtime.GOOS + "-" + runtime.GOARCH}
		for k, v := range want {
			if out[k] != v {
				t.Errorf("resolve output %s = %q, want %q", k, out[k], v)
			}
		}
		if !strings.HasPrefix(out["dir"], run.runner["RUNNER_TEMP"]+string(filepath.Separator)) {
			t.Errorf("resolve output dir %q, want a directory in RUNNER_TEMP", out["dir"])
		}
		out, log, err = run.step("install")
		if err != nil {
			t.Fatalf("install: %v\n%s", err, log)
		}
		wantLog(t, log, "verified "+archiveName(released))
		if out["path"] != filepath.Join(run.outputs["resolve"]["dir"], "mcpconform") {
			t.Errorf("install output path %q, want mcpconform in resolve's dir", out["path"])
		}
		version, err := exec.Command(out["path"], "version").Output()
		if err != nil || !strings.Contains(string(version), "mcpconform "+released) {
			t.Errorf("%s version: %q, %v; want mcpconform %s", out["path"], version, err, released)
		}
		// The binary as actions/cache restores it: run, not downloaded again.
		if _, log, err := run.step("install"); err != nil {
			t.Fatalf("install from the cache: %v\n%s", err, log)
		}
		for _, f := range []string{archiveName(released), checksumsName(released)} {
			if n := rel.count("/releases/download/" + released + "/" + f); n != 1 {
				t.Errorf("%s was requested %d times, want once (the second install uses the cached binary)", f, n)
			}
		}
	})

	t.Run("latest is the release the latest page redirects to", func(t *testing.T) {
		rel := newRelease(t)
		rel.publish(released, archive)
		rel.markLatest(released)
		run := newActionRun(t, map[string]string{"version": "latest", "base-url": rel.baseURL()})
		out, log, err := run.step("resolve")
		if err != nil || out["kind"] != "release" || out["version"] != released {
			t.Fatalf("resolve: %v, kind %q, version %q; want release %s\n%s", err, out["kind"], out["version"], released, log)
		}
		if out, log, err := run.step("install"); err != nil || out["path"] == "" {
			t.Errorf("install: %v, path %q\n%s", err, out["path"], log)
		}
	})

	sum := fmt.Sprintf("%x", sha256.Sum256(archive))
	tampered := slices.Clone(archive)
	tampered[len(tampered)/2] ^= 0xff
	tamperedSum := fmt.Sprintf("%x", sha256.Sum256(tampered))
	archivePath := "/releases/download/" + released + "/" + archiveName(released)
	sumsPath := "/releases/download/" + released + "/" + checksumsName(released)
	for _, tc := range []struct {
		name    string
		version string
		serve   map[string][]byte // files replacing the release's; nil: removed
		log     []string
	}{{
		name: "a tampered archive is refused", version: released,
		serve: map[string][]byte{archivePath: tampered},
		log:   []string{"checksum mismatch for " + archiveName(released), "expected " + sum, "got " + tamperedSum, "not installed"},
	}, {
		name: "a checksums file without the archive is refused", version: released,
		serve: map[string][]byte{sumsPath: fmt.Appendf(nil, "%x  mcpconform_0.4.0_plan9_mips.tar.gz\n", sha256.Sum256(nil))},
		log:   []string{checksumsName(released) + " has no entry for " + archiveName(released), "got " + sum, "not installed"},
	}, {
		name: "a release without its checksums file is refused", version: released,
		serve: map[string][]byte{sumsPath: nil},
		log:   []string{"the checksums file http://***@127.0.0.1:", sumsPath + " was not found (HTTP 404)"},
	}, {
		name: "an unreleased version is a clear error", version: "v9.9.9",
		log: []string{"the release archive http://***@127.0.0.1:", "/releases/download/v9.9.9/" + archiveName("v9.9.9") + " was not found (HTTP 404)", "pin a released version", "build from source"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			rel := newRelease(t)
			rel.publish(released, archive)
			for path, data := range tc.serve {
				rel.put(path, data)
			}
			// Credentials in the base URL are never printed.
			base := strings.Replace(rel.baseURL(), "http://", "http://reader:s3cr3t@", 1)
			run := newActionRun(t, map[string]string{"version": tc.version, "base-url": base})
			if _, log, err := run.step("resolve"); err != nil {
				t.Fatalf("resolve: %v\n%s", err, log)
			}
			_, log, err := run.step("install")
			wantExit(t, err, 2, log)
			wantLog(t, log, tc.log...)
			if strings.Contains(log, "s3cr3t") {
				t.Errorf("the log shows the base URL's password:\n%s", log)
			}
			if found := binaries(t, run.runner["RUNNER_TEMP"]); len(found) > 0 {
				t.Errorf("an unverified binary was left: %v", found)
			}
		})
	}
}

// TestInstallResolvesSource: what is not a release is built from source with
// go install (the install step is not run here: it needs the module proxy),
// and a version that is neither is exit status 2.
func TestInstallResolvesSource(t *testing.T) {
	needTools(t)
	rel := newRelease(t) // no release: latest has no page
	checkout, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, version, log string }{
		{"latest without a release", "latest", "::warning title=mcpconform install::latest names no release"},
		{"a branch", "main", ""},
		{"a commit", "6ae68df", ""},
		{"a checkout", checkout, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := newActionRun(t, map[string]string{"version": tc.version, "base-url": rel.baseURL()})
			out, log, err := run.step("resolve")
			if err != nil || out["kind"] != "source" || out["version"] != tc.version || out["cache-key"] != "" {
				t.Errorf("resolve: %v, outputs %v; want kind source, version %q and no cache-key\n%s", err, out, tc.version, log)
			}
			wantLog(t, log, tc.log)
		})
	}
	for _, version := range []string{"v1;rm -rf ~", "./no-such-checkout", "-v"} {
		t.Run(version, func(t *testing.T) {
			run := newActionRun(t, map[string]string{"version": version, "base-url": rel.baseURL()})
			_, log, err := run.step("resolve")
			wantExit(t, err, 2, log)
			wantLog(t, log, "::error title=mcpconform install::version '"+version+"'")
		})
	}
	t.Run("a base-url that is not http", func(t *testing.T) {
		run := newActionRun(t, map[string]string{"version": released, "base-url": "file:///etc"})
		_, log, err := run.step("resolve")
		wantExit(t, err, 2, log)
		wantLog(t, log, "base-url 'file:///etc' is not an http(s) URL")
	})
}
