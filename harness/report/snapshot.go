package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/gkampitakis/go-snaps/snaps"
)

// snapshotMu serialises MatchSnapshot. go-snaps numbers the standalone
// snapshots of a path in a process-wide registry (the "_1" of the file name)
// and resets the number in a Cleanup; one call at a time, with its cleanups
// run before the next, keeps every file at "_1".
var snapshotMu sync.Mutex

var (
	ansiEscape  = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	unsafeInDir = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
	safeCheckID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// SnapshotPath returns the file MatchSnapshot compares against:
// dir/<implementation>/<checkID>_1.snap, with characters of implementation
// that cannot safely name a directory replaced by '-'. go-snaps appends the
// "_1" to every standalone snapshot.
func SnapshotPath(dir, implementation, checkID string) (string, error) {
	if !safeCheckID.MatchString(checkID) {
		return "", fmt.Errorf("snapshot: check ID %q cannot name a file; check IDs are lower-case words joined by dots and dashes", checkID)
	}
	impl := strings.TrimLeft(unsafeInDir.ReplaceAllString(implementation, "-"), ".-")
	if impl == "" {
		return "", fmt.Errorf("snapshot: implementation name %q gives no directory name; name the implementation with letters, digits, dots or dashes", implementation)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("snapshot directory %s: %w; pass --snapshots an absolute path", dir, err)
	}
	return filepath.Join(abs, impl, checkID+"_1.snap"), nil
}

// MatchSnapshot compares a check's normalised transcript with its snapshot,
// one file per check per implementation under dir (see SnapshotPath), through
// go-snaps' standalone snapshots. The file holds the transcript's lines, one
// per line.
//
// A missing snapshot is created and matches. A different transcript returns
// the diff (plain text, without colour) and leaves the file alone, unless
// update is set, in which case the file is rewritten and the diff is "".
//
// go-snaps refuses to create or update snapshots when it detects CI: the
// CI variable set to anything but "false", or a CI vendor's variables (for
// example GITHUB_ACTIONS, BUILD_NUMBER, RUN_ID). The decision is made once,
// at program start. MatchSnapshot then returns an error telling the user to
// run with --update-snapshots locally and commit the files; on a mismatch it
// returns the diff with that error when update was asked for. UPDATE_SNAPS=always
// in the environment makes go-snaps create and update even in CI; other
// values of UPDATE_SNAPS have no effect here.
func MatchSnapshot(dir, implementation, checkID string, transcript []string, update bool) (diff string, err error) {
	file, err := SnapshotPath(dir, implementation, checkID)
	if err != nil {
		return "", err
	}
	existed := true
	if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
		existed = false
	} else if err != nil {
		return "", fmt.Errorf("snapshot %s: %w; check the permissions of %s", file, err, dir)
	} else if err := CheckInput("snapshot", file, MaxSnapshotFile); err != nil {
		return "", err
	}

	snapshotMu.Lock()
	defer snapshotMu.Unlock()
	t := &snapsT{name: checkID}
	snaps.WithConfig(
		// go-snaps formats the whole path with fmt.Sprintf to number the file.
		snaps.Dir(strings.ReplaceAll(filepath.Dir(file), "%", "%%")),
		snaps.Filename(checkID),
		// A missing snapshot is always created; an existing one is rewritten only on request.
		snaps.Update(update || !existed),
		snaps.Serializer(snapshotText),
	).MatchStandaloneSnapshot(t, transcript)
	t.runCleanups()

	rel, relErr := filepath.Rel(filepath.Dir(filepath.Dir(file)), file)
	if relErr != nil {
		rel = file
	}
	switch {
	case t.err != nil && !existed && !isIOError(t.err):
		return "", fmt.Errorf("snapshot %s does not exist and go-snaps does not create snapshots when it detects CI (CI is set, or a CI vendor's variables); run with --update-snapshots locally and commit the files under %s, or set UPDATE_SNAPS=always to create them here", file, dir)
	case t.err != nil:
		return "", fmt.Errorf("snapshot %s: %w; check the permissions and free space of %s", file, t.err, dir)
	case t.diff != "" && update:
		return plainDiff(t.diff, rel), fmt.Errorf("snapshot %s differs and go-snaps does not update snapshots when it detects CI (CI is set, or a CI vendor's variables); run with --update-snapshots locally and commit the files under %s", file, dir)
	case t.diff != "":
		return plainDiff(t.diff, rel), nil
	}
	return "", nil
}

// snapshotText is the snapshot file's content: one transcript line per line.
func snapshotText(v any) string {
	lines, _ := v.([]string)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func isIOError(err error) bool {
	var pe *fs.PathError
	var le *os.LinkError
	return errors.As(err, &pe) || errors.As(err, &le)
}

// plainDiff strips colour from a go-snaps diff and replaces its last line,
// a path relative to the caller's source file, with the snapshot's path
// relative to the snapshot directory.
func plainDiff(diff, rel string) string {
	lines := strings.Split(strings.Trim(ansiEscape.ReplaceAllString(diff, ""), "\n"), "\n")
	if last := len(lines) - 1; strings.HasPrefix(lines[last], "at ") {
		lines[last] = "at " + rel
	}
	return strings.Join(lines, "\n")
}

// snapsT is the test handle go-snaps needs, for use outside a test: it keeps
// the first error go-snaps reports (a diff is reported as a string, an I/O
// failure or a refusal to create as an error) and runs cleanups on demand.
type snapsT struct {
	name     string
	diff     string
	err      error
	cleanups []func()
}

func (t *snapsT) Helper()              {}
func (t *snapsT) Skip(...any)          {}
func (t *snapsT) Skipf(string, ...any) {}
func (t *snapsT) SkipNow()             {}
func (t *snapsT) Name() string         { return t.name }
func (t *snapsT) Log(...any)           {}
func (t *snapsT) Cleanup(f func())     { t.cleanups = append(t.cleanups, f) }

func (t *snapsT) Error(args ...any) {
	if t.diff != "" || t.err != nil {
		return
	}
	if len(args) == 1 {
		switch a := args[0].(type) {
		case string:
			t.diff = a
			return
		case error:
			t.err = a
			return
		}
	}
	t.err = errors.New(fmt.Sprint(args...))
}

func (t *snapsT) runCleanups() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	t.cleanups = nil
}
