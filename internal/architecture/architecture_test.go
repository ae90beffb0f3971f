// Package architecture holds the test that keeps the module's imports on
// the floors ARCHITECTURE.md gives: a package imports only packages of its
// floor or of a floor below, and every package of the module has a floor.
package architecture

import (
	"errors"
	"go/build"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/mcpconform/mcpconform/"

// root is the module's directory, two floors above this package's.
const root = "../.."

// TestImportsFollowTheFloors reads the floors from ARCHITECTURE.md and
// every package's imports (its non-test files, as the default build
// context selects them), and fails on an import that goes up a floor and
// on a package the table does not place.
func TestImportsFollowTheFloors(t *testing.T) {
	floors := readFloors(t, filepath.Join(root, "ARCHITECTURE.md"))
	pkgs := modulePackages(t)
	if len(pkgs) < 20 {
		t.Fatalf("found %d packages of the module under %s; the walk is broken", len(pkgs), root)
	}
	for _, path := range slices.Sorted(maps.Keys(pkgs)) {
		floor, ok := floors[path]
		if !ok {
			t.Errorf("package %s has no floor in ARCHITECTURE.md; name it in the row of the floor it belongs to", path)
			continue
		}
		for _, imp := range pkgs[path] {
			if f, ok := floors[imp]; ok && f > floor {
				t.Errorf("%s (floor %d) imports %s (floor %d): an import goes to its floor or below (ARCHITECTURE.md); move the code down, or the package", path, floor, imp, f)
			}
		}
	}
	for path := range floors {
		if _, ok := pkgs[path]; !ok {
			t.Errorf("ARCHITECTURE.md places %s, which is no package of the module: drop it from the table", path)
		}
	}
}

// readFloors reads the floors table: each row's first cell starts with its
// floor's number, its second names the packages in backquotes.
func readFloors(t *testing.T, path string) map[string]int {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	floors := map[string]int{}
	row := regexp.MustCompile(`^\| (\d+) [^|]*\| ([^|]*)\|`)
	name := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(string(b), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, p := range name.FindAllStringSubmatch(m[2], -1) {
			if prev, dup := floors[p[1]]; dup {
				t.Errorf("ARCHITECTURE.md places %s on floors %d and %d", p[1], prev, n)
			}
			floors[p[1]] = n
		}
	}
	if len(floors) == 0 {
		t.Fatalf("%s has no floors table (rows \"| N name | `pkg`, … | … |\")", path)
	}
	return floors
}

// modulePackages maps each package of the module (its path inside the
// module) to the packages of the module its non-test files import. A
// directory with a go.mod of its own (peers/, browser/) is another
// module; testdata and hidden directories hold no packages.
func modulePackages(t *testing.T) map[string][]string {
	pkgs := map[string][]string{}
	err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if dir != root {
			if strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		p, err := build.Default.ImportDir(dir, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(p.GoFiles)+len(p.CgoFiles) == 0 {
			return nil // tests only, as this package: nothing imports it
		}
		rel, _ := filepath.Rel(root, dir)
		var imports []string
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) {
				imports = append(imports, strings.TrimPrefix(imp, module))
			}
		}
		pkgs[filepath.ToSlash(rel)] = imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}
