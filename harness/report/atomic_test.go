package report

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestWriteFileAtomicReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out", "report.json")
	for _, content := range []string{"first version, longer", "second"} {
		if err := WriteFileAtomic(path, []byte(content)); err != nil {
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

func TestWriteFileAtomicPathIsDirectory(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.html")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteFileAtomic(target, []byte("x"))
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

func TestWriteFileAtomicParentIsAFile(t *testing.T) {
	dir := t.TempDir()
	parent := writeFile(t, dir, "plain", "keep")
	err := WriteFileAtomic(filepath.Join(parent, "report.json"), []byte("x"))
	if err == nil {
		t.Fatal("writing under a file succeeded")
	}
	wantContains(t, err.Error(), parent, "writable directory")
	if got := readFile(t, parent); got != "keep" {
		t.Errorf("the file in the way was changed to %q", got)
	}
}

func TestWriteFileAtomicUnwritableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes to read-only directories; TestWriteFileAtomicParentIsAFile covers the failure path")
	}
	dir := t.TempDir()
	path := writeFile(t, dir, "report.md", "previous")
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	err := WriteFileAtomic(path, []byte("new"))
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
