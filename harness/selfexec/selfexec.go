// Package selfexec runs mcpconform's own subcommands (the fake servers, the
// reference adapter) as child processes of the current executable. In the
// mcpconform binary they are ordinary subcommands; in a test binary, TestMain
// calls Dispatch so that the same argv works there too.
package selfexec

import (
	"fmt"
	"os"
	"sync"
)

var (
	mu       sync.Mutex
	commands = map[string]func(args []string) int{}
)

// Register makes a subcommand runnable through Command and Dispatch.
func Register(name string, main func(args []string) int) {
	mu.Lock()
	defer mu.Unlock()
	commands[name] = main
}

// Lookup returns a registered subcommand.
func Lookup(name string) (func(args []string) int, bool) {
	mu.Lock()
	defer mu.Unlock()
	f, ok := commands[name]
	return f, ok
}

// Command returns the argv that runs subcommand name with args in a child
// process of this executable.
func Command(name string, args ...string) []string {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return append([]string{exe, name}, args...)
}

// Dispatch runs a registered subcommand and exits when os.Args[1] names one;
// otherwise it returns. Test binaries call it first thing in TestMain.
//
// When it returns, the test binary is the parent of the children it will
// start; under -race those children would pause a second at exit (the race
// detector's atexit sleep) and look like servers that ignore stdin EOF, so
// Dispatch turns that pause off for them unless GORACE is already set.
func Dispatch() {
	if len(os.Args) >= 2 {
		if f, ok := Lookup(os.Args[1]); ok {
			os.Exit(f(os.Args[2:]))
		}
	}
	if _, set := os.LookupEnv("GORACE"); !set {
		_ = os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
}

// MustLookup is Lookup for names the caller registered itself.
func MustLookup(name string) func(args []string) int {
	f, ok := Lookup(name)
	if !ok {
		panic(fmt.Sprintf("selfexec: %q is not registered", name))
	}
	return f
}
