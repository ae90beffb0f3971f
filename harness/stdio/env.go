package stdio

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// caseInsensitiveEnv: environment names are compared case-insensitively on
// Windows only (NG-10).
var caseInsensitiveEnv = runtime.GOOS == "windows"

// envCaseNote explains a duplicate that differs only in case.
var envCaseNote = func() string {
	if caseInsensitiveEnv {
		return " (names are case-insensitive on Windows)"
	}
	return ""
}()

// envKey is the name under which an environment entry is unique.
func envKey(name string) string {
	if caseInsensitiveEnv {
		return strings.ToUpper(name)
	}
	return name
}

// environ returns the server's environment (NG-11): with ReplaceEnvironment
// exactly the entries (none means an empty environment), otherwise this
// process's environment with the entries added or overriding. The result is
// never nil, so an empty environment stays empty.
func (c Config) environ() []string {
	var inherited []string
	if !c.ReplaceEnvironment {
		inherited = os.Environ()
	}
	given := make(map[string]bool, len(c.Environment))
	for _, e := range c.Environment {
		given[envKey(e.Name)] = true
	}
	env := make([]string, 0, len(inherited)+len(c.Environment))
	for _, kv := range inherited {
		name, _, _ := strings.Cut(kv, "=")
		if !given[envKey(name)] {
			env = append(env, kv)
		}
	}
	for _, e := range c.Environment {
		env = append(env, e.Name+"="+e.Value)
	}
	return env
}

// searchPath returns the PATH argv[0] is looked up in and where it comes
// from: the Environment's PATH entry when there is one (NG-11), else this
// process's PATH.
func (c Config) searchPath() (path, from string) {
	for _, e := range c.Environment {
		if envKey(e.Name) == envKey("PATH") {
			return e.Value, "the PATH entry of Environment"
		}
	}
	return os.Getenv("PATH"), "this process's PATH"
}

// program resolves argv[0] to the executable to run. A name containing '/'
// is used as it is (relative to Dir when relative). Otherwise it is looked up
// in the absolute directories of the search PATH; relative and empty PATH
// elements are ignored, so the lookup never depends on the working directory.
func (c Config) program() (string, error) {
	name := c.Command[0]
	if strings.ContainsRune(name, '/') {
		return name, nil
	}
	path, from := c.searchPath()
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		candidate := filepath.Join(dir, name)
		if isExecutable(candidate) {
			return candidate, nil
		}
	}
	return "", fmt.Errorf("stdio: command %q not found in %s (%q); give its absolute path or add its directory to PATH", name, from, path)
}

// isExecutable reports whether p is a regular file with an execute bit set.
func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
