package report

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFileAtomic writes data to path whole or not at all: it writes a
// temporary file in the same directory, syncs it, and renames it over path,
// so a reader never sees a partial report and a failed write leaves any
// previous file untouched. Missing parent directories are created. On error
// the temporary file is removed and the error names the path and what to do.
func WriteFileAtomic(path string, data []byte) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("write %s: it is a directory; name a file inside it instead", path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: create directory: %w; choose a path in a writable directory", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
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
	if err := os.Rename(tmpName, path); err != nil {
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
