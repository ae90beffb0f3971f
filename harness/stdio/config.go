package stdio

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// EnvEntry is one environment variable given to the server (NG-10, NG-11).
type EnvEntry struct{ Name, Value string }

// Config says how to launch a stdio server and the limits the client keeps
// while it runs. Zero values are literal (a text budget of 0 skips nothing);
// start from DefaultConfig for the seed defaults.
type Config struct {
	// Command is the server's argv. argv[0] is looked up in the PATH entry of
	// Environment when there is one (NG-11), else in this process's PATH;
	// an argv[0] containing '/' is used as it is.
	Command []string
	// Dir is the server's working directory; empty means this process's.
	Dir string
	// Environment adds to or overrides the inherited environment, or is the
	// whole environment with ReplaceEnvironment (NG-10, NG-11).
	Environment        []EnvEntry
	ReplaceEnvironment bool

	// MaxStdoutTextLines is how many non-JSON stdout lines the session skips
	// (NG-03); 0 skips none.
	MaxStdoutTextLines int
	// MaxStdoutTextBytes is how many bytes of skipped lines, newlines
	// included, the session skips (NG-03); 0 skips none.
	MaxStdoutTextBytes int64
	// MaxStderrBytes is the size of the stderr tail kept (NG-05).
	MaxStderrBytes int
	// MaxLineBytes bounds one stdout line; a longer line is a protocol
	// failure, so memory stays bounded whatever the server writes.
	MaxLineBytes int

	// CancelGrace is the wait after a cancelled or timed-out request before
	// the process tree is terminated (NG-07).
	CancelGrace time.Duration
	// ShutdownGrace is the wait after closing stdin before SIGTERM, and after
	// SIGTERM before SIGKILL (LC-20).
	ShutdownGrace time.Duration
	// StartupTimeout covers launch until notifications/initialized is sent
	// (NG-09). The session (mcpclient.Connect) enforces it; the transport only
	// carries it.
	StartupTimeout time.Duration

	// Report receives the one-time report of skipped stdout text (NG-04);
	// nil means os.Stderr.
	Report io.Writer
	// Mutant selects a mutant of the reference client; empty is the reference.
	Mutant mutant.Name
}

// The seed defaults (SEMANTICS.md, NG rules).
const (
	DefaultMaxStdoutTextLines       = 1000
	DefaultMaxStdoutTextBytes int64 = 1 << 20
	DefaultMaxStderrBytes           = 64 << 10
	DefaultMaxLineBytes             = 16 << 20
	DefaultCancelGrace              = 500 * time.Millisecond
	DefaultShutdownGrace            = 2 * time.Second
	DefaultStartupTimeout           = 10 * time.Second
)

// DefaultConfig returns a Config with the seed defaults and no command.
func DefaultConfig() Config {
	return Config{
		MaxStdoutTextLines: DefaultMaxStdoutTextLines,
		MaxStdoutTextBytes: DefaultMaxStdoutTextBytes,
		MaxStderrBytes:     DefaultMaxStderrBytes,
		MaxLineBytes:       DefaultMaxLineBytes,
		CancelGrace:        DefaultCancelGrace,
		ShutdownGrace:      DefaultShutdownGrace,
		StartupTimeout:     DefaultStartupTimeout,
	}
}

// Validate checks the configuration before anything is spawned (NG-10). Every
// problem is reported, each naming the entry and the way out; values of
// environment entries are never quoted.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("stdio config: "+format, args...))
	}
	if len(c.Command) == 0 {
		bad("Command is empty; give the server's argv, e.g. [\"node\", \"server.js\"]")
	} else if c.Command[0] == "" {
		bad("Command[0] is empty; it must name the server program")
	}
	for i, arg := range c.Command {
		if strings.IndexByte(arg, 0) >= 0 {
			bad("Command[%d] contains a NUL byte, which no process argument can hold; remove it", i)
		}
	}
	if strings.IndexByte(c.Dir, 0) >= 0 {
		bad("Dir contains a NUL byte; give a valid directory path")
	}
	errs = append(errs, c.validateEnvironment()...)
	for _, n := range []struct {
		name  string
		value int64
		zero  string
	}{
		{"MaxStdoutTextLines", int64(c.MaxStdoutTextLines), "0 skips no text"},
		{"MaxStdoutTextBytes", c.MaxStdoutTextBytes, "0 skips no text"},
		{"MaxStderrBytes", int64(c.MaxStderrBytes), "0 keeps no stderr"},
		{"CancelGrace", int64(c.CancelGrace), "0 terminates at once"},
		{"ShutdownGrace", int64(c.ShutdownGrace), "0 escalates at once"},
		{"StartupTimeout", int64(c.StartupTimeout), "0 allows no time"},
	} {
		if n.value < 0 {
			bad("%s is negative (%d); use 0 or more (%s; DefaultConfig has the seed defaults)", n.name, n.value, n.zero)
		}
	}
	if c.MaxLineBytes <= 0 {
		bad("MaxLineBytes is %d, so no message fits on a line; use a positive limit (DefaultConfig uses %d)", c.MaxLineBytes, DefaultMaxLineBytes)
	}
	return errors.Join(errs...)
}

// validateEnvironment applies NG-10 to the environment entries. An entry is
// named by its index and, when that is safe, its name; values never appear.
func (c Config) validateEnvironment() []error {
	var errs []error
	seen := make(map[string]int, len(c.Environment))
	for i, e := range c.Environment {
		switch {
		case e.Name == "":
			errs = append(errs, fmt.Errorf("stdio config: Environment[%d] has an empty name; name the variable or drop the entry", i))
			continue
		case strings.IndexByte(e.Name, 0) >= 0:
			errs = append(errs, fmt.Errorf("stdio config: Environment[%d] name contains a NUL byte; remove it", i))
			continue
		case strings.IndexByte(e.Name, '=') >= 0:
			before, _, _ := strings.Cut(e.Name, "=")
			errs = append(errs, fmt.Errorf("stdio config: Environment[%d] name %q… contains '='; a name cannot hold '=', put what follows it in Value", i, before))
			continue
		}
		if strings.IndexByte(e.Value, 0) >= 0 {
			errs = append(errs, fmt.Errorf("stdio config: Environment[%d] (%s) value contains a NUL byte, which no environment variable can hold; remove it", i, e.Name))
		}
		key := envKey(e.Name)
		if j, dup := seen[key]; dup {
			errs = append(errs, fmt.Errorf("stdio config: Environment[%d] and Environment[%d] both set %s%s; keep one", j, i, e.Name, envCaseNote))
			continue
		}
		seen[key] = i
	}
	return errs
}
