package stdio

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestDefaultConfigHasTheSeedDefaults(t *testing.T) {
	c := DefaultConfig()
	if c.MaxStdoutTextLines != 1000 || c.MaxStdoutTextBytes != 1<<20 || c.MaxStderrBytes != 64<<10 ||
		c.MaxLineBytes != 16<<20 || c.CancelGrace != 500*time.Millisecond ||
		c.ShutdownGrace != 2*time.Second || c.StartupTimeout != 10*time.Second {
		t.Fatalf("DefaultConfig() = %+v", c)
	}
}

// TestValidate: NG-10, rejected before anything is spawned, with a message
// naming the entry and the way out, and never an entry's value.
func TestValidate(t *testing.T) {
	ok := func(c *Config) {}
	tests := []struct {
		name  string
		edit  func(c *Config)
		wants []string // substrings of the error; none: valid
	}{
		{"valid", ok, nil},
		{"replace with no entries", func(c *Config) { c.ReplaceEnvironment = true }, nil},
		{"zero budgets are literal", func(c *Config) { c.MaxStdoutTextLines, c.MaxStdoutTextBytes, c.MaxStderrBytes = 0, 0, 0 }, nil},
		{"empty command", func(c *Config) { c.Command = nil }, []string{"Command is empty", "give the server's argv"}},
		{"empty program", func(c *Config) { c.Command = []string{""} }, []string{"Command[0] is empty"}},
		{"NUL in argv", func(c *Config) { c.Command = []string{"srv", "a\x00b"} }, []string{"Command[1]", "NUL", "remove it"}},
		{"NUL in dir", func(c *Config) { c.Dir = "/tmp\x00" }, []string{"Dir", "NUL"}},
		{"empty name", func(c *Config) { c.Environment = []EnvEntry{{"A", "1"}, {"", "x"}} }, []string{"Environment[1]", "empty name", "drop the entry"}},
		{"'=' in name", func(c *Config) { c.Environment = []EnvEntry{{"TOKEN=hunter2", ""}} }, []string{"Environment[0]", `"TOKEN"`, "'='", "Value"}},
		{"NUL in name", func(c *Config) { c.Environment = []EnvEntry{{"A\x00B", "1"}} }, []string{"Environment[0]", "NUL"}},
		{"NUL in value", func(c *Config) { c.Environment = []EnvEntry{{"SECRET", "hunter2\x00"}} }, []string{"Environment[0]", "SECRET", "NUL", "remove it"}},
		{"duplicate name", func(c *Config) { c.Environment = []EnvEntry{{"A", "1"}, {"B", "2"}, {"A", "3"}} }, []string{"Environment[0] and Environment[2]", "both set A", "keep one"}},
		{"negative line budget", func(c *Config) { c.MaxStdoutTextLines = -1 }, []string{"MaxStdoutTextLines is negative (-1)", "use 0 or more"}},
		{"negative byte budget", func(c *Config) { c.MaxStdoutTextBytes = -5 }, []string{"MaxStdoutTextBytes is negative"}},
		{"negative stderr", func(c *Config) { c.MaxStderrBytes = -1 }, []string{"MaxStderrBytes is negative"}},
		{"negative grace", func(c *Config) { c.CancelGrace = -time.Second }, []string{"CancelGrace is negative"}},
		{"negative shutdown grace", func(c *Config) { c.ShutdownGrace = -1 }, []string{"ShutdownGrace is negative"}},
		{"negative startup", func(c *Config) { c.StartupTimeout = -1 }, []string{"StartupTimeout is negative"}},
		{"zero line limit", func(c *Config) { c.MaxLineBytes = 0 }, []string{"MaxLineBytes is 0", "positive"}},
		{"every problem at once", func(c *Config) { c.Command = nil; c.MaxStderrBytes = -1 }, []string{"Command is empty", "MaxStderrBytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Command = []string{"server"}
			tt.edit(&c)
			err := c.Validate()
			if len(tt.wants) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, want it to mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Validate() = %q quotes an environment value", err)
			}
		})
	}
}

func TestValidateNamesAreCaseSensitiveOffWindows(t *testing.T) {
	c := DefaultConfig()
	c.Command = []string{"server"}
	c.Environment = []EnvEntry{{"Path", "a"}, {"PATH", "b"}}
	err := c.Validate()
	if runtime.GOOS == "windows" {
		if err == nil {
			t.Fatal("Path and PATH accepted on Windows")
		}
		return
	}
	if err != nil {
		t.Fatalf("Path and PATH rejected off Windows: %v", err)
	}
}

func TestStartRejectsInvalidConfigWithoutSpawning(t *testing.T) {
	marker := t.TempDir() + "/spawned"
	cfg, _ := testConfig("/bin/sh", "-c", "touch "+marker)
	cfg.Environment = []EnvEntry{{"", "x"}}
	if _, err := Start(cfg); err == nil || !strings.Contains(err.Error(), "empty name") {
		t.Fatalf("Start() error = %v, want the validation error", err)
	}
	if fileExists(marker) {
		t.Fatal("the server was spawned despite the invalid config")
	}
}
