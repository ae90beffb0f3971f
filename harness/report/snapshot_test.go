package report

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// snapshotChildEnv marks the child process runInChild starts.
const snapshotChildEnv = "MCPCONFORM_REPORT_SNAPSHOT_CHILD"

// runInChild reports whether the calling test is the child, which runs the
// test body. Otherwise it runs the test again in a child process with env
// added and returns false. go-snaps decides once, when the program starts,
// whether it runs in CI (CI, vendor variables) and reads UPDATE_SNAPS and
// NO_COLOR then, so a test that depends on them needs a process of its own.
func runInChild(t *testing.T, env ...string) bool {
	t.Helper()
	if os.Getenv(snapshotChildEnv) == "1" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "CI" && name != "UPDATE_SNAPS" && name != "NO_COLOR" && name != "TERM" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, append([]string{snapshotChildEnv + "=1"}, env...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child test: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("child did not run the test:\n%s", out)
	}
	return false
}

func TestSnapshotLifecycle(t *testing.T) {
	// CI=false turns off go-snaps' CI detection whatever else is set;
	// TERM makes it colour its diff, which MatchSnapshot must strip.
	if !runInChild(t, "CI=false", "TERM=xterm-256color") {
		return
	}
	dir := filepath.Join(t.TempDir(), "snaps")
	const impl, id = "Go SDK/v1.2", "stdio.server.ping"
	file, err := SnapshotPath(dir, impl, id)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "Go-SDK-v1.2", "stdio.server.ping_1.snap"); file != want {
		t.Fatalf("SnapshotPath = %s, want %s", file, want)
	}
	v1 := []string{`c2s {"id":"<n1>","method":"ping"}`, `s2c {"id":"<n1>","result":{}}`}
	v2 := []string{`c2s {"id":"<n1>","method":"ping"}`, `s2c {"error":{"code":-32601},"id":"<n1>"}`}

	step := func(name string, lines []string, update bool, wantDiff bool, wantFile []string) {
		t.Helper()
		diff, err := MatchSnapshot(dir, impl, id, lines, update)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if (diff != "") != wantDiff {
			t.Fatalf("%s: diff = %q", name, diff)
		}
		if got, want := readFile(t, file), strings.Join(wantFile, "\n")+"\n"; got != want {
			t.Fatalf("%s: file holds %q, want %q", name, got, want)
		}
		if wantDiff {
			if strings.Contains(diff, "\x1b") {
				t.Errorf("%s: diff has colour codes: %q", name, diff)
			}
			wantContains(t, diff, `- s2c {"id":"<n1>","result":{}}`, `+ s2c {"error":{"code":-32601},"id":"<n1>"}`,
				"at "+filepath.Join("Go-SDK-v1.2", "stdio.server.ping_1.snap"))
		}
	}
	step("create", v1, false, false, v1)
	step("match", v1, false, false, v1)
	step("mismatch", v2, false, true, v1)
	step("update", v2, true, false, v2)
	step("match after update", v2, false, false, v2)
	step("update with nothing to change", v2, true, false, v2)

	entries := dirEntries(t, filepath.Dir(file))
	if len(entries) != 1 {
		t.Errorf("snapshot directory holds %v, want one file", entries)
	}
}

func TestSnapshotConcurrentAndOddPaths(t *testing.T) {
	if !runInChild(t, "CI=false") {
		return
	}
	dir := filepath.Join(t.TempDir(), "100%d snaps")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = MatchSnapshot(dir, "impl", "same.check", []string{"note x"}, false)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := dirEntries(t, filepath.Join(dir, "impl")); len(got) != 1 || got[0] != "same.check_1.snap" {
		t.Errorf("files = %v, want only same.check_1.snap", got)
	}

	// A relative directory is relative to the working directory, not to the caller's source.
	wd := t.TempDir()
	t.Chdir(wd)
	if _, err := MatchSnapshot("rel", "impl", "a.check", nil, false); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(wd, "rel", "impl", "a.check_1.snap")); got != "" {
		t.Errorf("empty transcript stored as %q", got)
	}

	for _, bad := range []struct{ impl, id, want string }{
		{"impl", "../escape", "check ID"},
		{"impl", "", "check ID"},
		{"..", "a.check", "implementation name"},
		{"", "a.check", "implementation name"},
	} {
		if _, err := MatchSnapshot(dir, bad.impl, bad.id, nil, false); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("MatchSnapshot(%q, %q) error = %v, want one about the %s", bad.impl, bad.id, err, bad.want)
		}
	}
}

func TestSnapshotInCI(t *testing.T) {
	if !runInChild(t, "CI=true") {
		return
	}
	dir := t.TempDir()
	file, err := SnapshotPath(dir, "impl", "ci.check")
	if err != nil {
		t.Fatal(err)
	}
	for _, update := range []bool{false, true} {
		_, err = MatchSnapshot(dir, "impl", "ci.check", []string{"note a"}, update)
		if err == nil {
			t.Fatalf("update=%v: a snapshot was created in CI", update)
		}
		wantContains(t, err.Error(), file, "--update-snapshots", "commit")
		if _, statErr := os.Stat(file); statErr == nil {
			t.Fatalf("update=%v: file created despite the error", update)
		}
	}

	writeFile(t, filepath.Dir(mkdirAll(t, file)), filepath.Base(file), "note a\n")
	if diff, err := MatchSnapshot(dir, "impl", "ci.check", []string{"note a"}, false); diff != "" || err != nil {
		t.Fatalf("matching snapshot in CI: %q, %v", diff, err)
	}
	diff, err := MatchSnapshot(dir, "impl", "ci.check", []string{"note b"}, false)
	if err != nil || !strings.Contains(diff, "+ note b") {
		t.Fatalf("mismatch in CI: %q, %v", diff, err)
	}
	diff, err = MatchSnapshot(dir, "impl", "ci.check", []string{"note b"}, true)
	if err == nil || diff == "" {
		t.Fatalf("update in CI: %q, %v", diff, err)
	}
	wantContains(t, err.Error(), "does not update snapshots when it detects CI", "--update-snapshots")
	if got := readFile(t, file); got != "note a\n" {
		t.Errorf("file changed in CI to %q", got)
	}
}

func mkdirAll(t *testing.T, file string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	return file
}
