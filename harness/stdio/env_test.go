package stdio

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// childEnv starts the test server with action env and returns the
// environment it saw.
func childEnv(t *testing.T, cfg Config) []string {
	t.Helper()
	c := start(t, cfg)
	m := next(t, c)
	if m.Method != "env" {
		t.Fatalf("got %s %q, want the env notification", m.Kind(), m.Method)
	}
	var p struct{ Env []string }
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	return p.Env
}

// TestReplacedEnvironmentIsExactlyTheEntries: NG-11.
func TestReplacedEnvironmentIsExactlyTheEntries(t *testing.T) {
	cfg, _ := testConfig(serverArgv("env", "waiteof")...)
	cfg.ReplaceEnvironment = true
	cfg.Environment = []EnvEntry{{"FOO", "bar"}, {"EMPTY", ""}}
	if got, want := childEnv(t, cfg), []string{"FOO=bar", "EMPTY="}; !slices.Equal(got, want) {
		t.Fatalf("environment = %q, want %q", got, want)
	}
}

// TestReplacedEnvironmentWithoutEntriesIsEmpty: NG-11, an empty list means
// an empty environment, not the inherited one.
func TestReplacedEnvironmentWithoutEntriesIsEmpty(t *testing.T) {
	cfg, _ := testConfig(serverArgv("env", "waiteof")...)
	cfg.ReplaceEnvironment = true
	cfg.Environment = nil
	if got := childEnv(t, cfg); len(got) != 0 {
		t.Fatalf("environment = %q, want it empty", got)
	}
}

// TestInheritedEnvironmentWithEntriesAddingAndOverriding: NG-11.
func TestInheritedEnvironmentWithEntriesAddingAndOverriding(t *testing.T) {
	t.Setenv("MCPCONFORM_STDIO_INHERITED", "parent")
	t.Setenv("MCPCONFORM_STDIO_OVERRIDDEN", "parent")
	cfg, _ := testConfig(serverArgv("env", "waiteof")...)
	cfg.Environment = []EnvEntry{{"MCPCONFORM_STDIO_OVERRIDDEN", "entry"}, {"MCPCONFORM_STDIO_ADDED", "entry"}}
	got := childEnv(t, cfg)
	for _, want := range []string{"MCPCONFORM_STDIO_INHERITED=parent", "MCPCONFORM_STDIO_OVERRIDDEN=entry", "MCPCONFORM_STDIO_ADDED=entry"} {
		if !slices.Contains(got, want) {
			t.Errorf("environment lacks %s", want)
		}
	}
	n := 0
	for _, kv := range got {
		if strings.HasPrefix(kv, "MCPCONFORM_STDIO_OVERRIDDEN=") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("MCPCONFORM_STDIO_OVERRIDDEN appears %d times, want once", n)
	}
}

// serverScript writes an executable named name into a new directory that
// runs the test server with actions, and returns the directory.
func serverScript(t *testing.T, name string, actions ...string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nexec '" + strings.Join(serverArgv(actions...), "' '") + "'\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestPathEntryIsWhereArgv0IsLookedUp: NG-11.
func TestPathEntryIsWhereArgv0IsLookedUp(t *testing.T) {
	const name = "mcpconform-stdio-test-server"
	dir := serverScript(t, name, "env", "waiteof")

	t.Run("found through the entry", func(t *testing.T) {
		cfg, _ := testConfig(name)
		cfg.Environment = []EnvEntry{{"PATH", "/nonexistent:" + dir}}
		if got := childEnv(t, cfg); !slices.Contains(got, "PATH=/nonexistent:"+dir) {
			t.Fatalf("environment %q lacks the PATH entry", got)
		}
	})
	t.Run("not found without it", func(t *testing.T) {
		cfg, _ := testConfig(name)
		_, err := Start(cfg)
		if err == nil || !strings.Contains(err.Error(), `command "`+name+`" not found in this process's PATH`) {
			t.Fatalf("Start() error = %v, want command not found", err)
		}
	})
	t.Run("the entry wins over the parent's PATH", func(t *testing.T) {
		t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		cfg, _ := testConfig(name)
		cfg.Environment = []EnvEntry{{"PATH", "/nonexistent"}}
		_, err := Start(cfg)
		if err == nil || !strings.Contains(err.Error(), "not found in the PATH entry of Environment") {
			t.Fatalf("Start() error = %v, want command not found in the entry", err)
		}
	})
	t.Run("a name with a slash is used as it is", func(t *testing.T) {
		cfg, _ := testConfig("./" + name)
		cfg.Dir = dir
		cfg.Environment = []EnvEntry{{"PATH", "/nonexistent"}}
		childEnv(t, cfg)
	})
}

// TestReplacedEnvironmentWithoutPathLooksUpInTheParentsPath: NG-11.
func TestReplacedEnvironmentWithoutPathLooksUpInTheParentsPath(t *testing.T) {
	cfg, _ := testConfig("sh", "-c", `echo '{"jsonrpc":"2.0","method":"hi"}'; cat >/dev/null`)
	cfg.ReplaceEnvironment = true
	c := start(t, cfg)
	if m := next(t, c); m.Method != "hi" {
		t.Fatalf("got %q, want hi", m.Method)
	}
}
