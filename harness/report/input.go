package report

import (
	"fmt"
	"io"
	"os"
)

// Size limits of the files a run reads: what a user names on the command
// line is refused past them, before it is read, so that no input can fill
// memory (a YAML file takes tens of times its size once parsed).
const (
	MaxFixturesFile = 1 << 20  // --fixtures (YAML)
	MaxBaselineFile = 1 << 20  // --expected-failures (YAML)
	MaxCaseFile     = 8 << 20  // a corpus case, for mcpconform replay (read line by line)
	MaxSnapshotFile = 16 << 20 // one snapshot under --snapshots
	MaxReportFile   = 64 << 20 // the JSON report mcpconform badge reads
)

// ReadInput reads a file the user named, as what (e.g. "--fixtures"): it
// must be a regular file (a directory, FIFO or device is refused before it
// is opened, so nothing blocks or streams forever) of at most limit bytes.
func ReadInput(what, path string, limit int64) ([]byte, error) {
	f, err := OpenInput(what, path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s %s: grew past %s while it was read; give a file that is not being written", what, path, Size(limit))
	}
	return b, nil
}

// OpenInput opens what ReadInput would read, for a reader that parses it as
// it goes and stops past limit.
func OpenInput(what, path string, limit int64) (*os.File, error) {
	if err := CheckInput(what, path, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	return f, nil
}

// CheckInput refuses what ReadInput would refuse, without reading.
func CheckInput(what, path string, limit int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: %w; check the path", what, err)
	}
	if !fi.Mode().IsRegular() {
		kind := "not a regular file"
		switch {
		case fi.IsDir():
			kind = "a directory"
		case fi.Mode()&os.ModeNamedPipe != 0:
			kind = "a FIFO"
		case fi.Mode()&os.ModeDevice != 0:
			kind = "a device"
		}
		return fmt.Errorf("%s %s is %s; give a regular file", what, path, kind)
	}
	if fi.Size() > limit {
		return fmt.Errorf("%s %s is %s, over the limit of %s for this input; give the right file, or cut it under the limit", what, path, Size(fi.Size()), Size(limit))
	}
	return nil
}

// Size renders a byte count in binary units: "512 B", "1.5 KiB", "16.0 MiB".
func Size(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
