package stdio

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// The test binary doubles as a scriptable server: `stdio-test-server ACTION…`
// runs the actions in order and then exits 0. Actions:
//
//	out:QUOTED        write the Go-quoted bytes to stdout
//	outn:N:QUOTED     write them N times
//	err:N             write N bytes to stderr, ending with "<END>"
//	errq:QUOTED       write the Go-quoted bytes to stderr
//	env               write a notification "env" whose params hold os.Environ()
//	echo              until stdin EOF: each stdin line comes back as a
//	                  notification "line" with params {"line": …}
//	waiteof           read stdin until EOF
//	record:FILE       append "EVENT UNIXNANO" lines to FILE: start, eof, term
//	ignoreterm        keep running on SIGTERM (recording it)
//	sleep:DUR         sleep
//	grandchild:FILE   start a grandchild in this process group that ignores
//	                  SIGTERM, writes its pid to FILE and sleeps
//	exit:N            exit with status N
const testServer = "stdio-test-server"

func init() { selfexec.Register(testServer, testServerMain) }

func TestMain(m *testing.M) {
	selfexec.Dispatch()
	os.Exit(m.Run())
}

// serverArgv is the argv that runs the test server with actions.
func serverArgv(actions ...string) []string { return selfexec.Command(testServer, actions...) }

// q quotes bytes for an out:, outn: or errq: action.
func q(s string) string { return strconv.Quote(s) }

func testServerMain(args []string) int {
	var record *os.File
	rec := func(event string) {
		if record != nil {
			fmt.Fprintf(record, "%s %d\n", event, time.Now().UnixNano())
		}
	}
	watchdog := time.AfterFunc(30*time.Second, func() { os.Exit(9) })
	defer watchdog.Stop()
	stdin := bufio.NewReader(os.Stdin)
	for _, a := range args {
		verb, arg, _ := strings.Cut(a, ":")
		switch verb {
		case "out":
			_, _ = os.Stdout.WriteString(unquote(arg))
		case "outn":
			n, text, _ := strings.Cut(arg, ":")
			_, _ = os.Stdout.WriteString(strings.Repeat(unquote(text), atoi(n)))
		case "err":
			writeStderr(atoi(arg))
		case "errq":
			_, _ = os.Stderr.WriteString(unquote(arg))
		case "env":
			writeNotification("env", map[string]any{"env": os.Environ()})
		case "echo":
			for {
				line, err := stdin.ReadString('\n')
				if line != "" {
					writeNotification("line", map[string]any{"line": line})
				}
				if err != nil {
					break
				}
			}
		case "waiteof":
			_, _ = stdin.WriteTo(discard{})
			rec("eof")
		case "record":
			f, err := os.OpenFile(arg, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err != nil {
				return 3
			}
			record = f
			rec("start")
		case "ignoreterm":
			c := make(chan os.Signal, 1)
			signal.Notify(c, syscall.SIGTERM)
			go func() {
				for range c {
					rec("term")
				}
			}()
		case "sleep":
			d, _ := time.ParseDuration(arg)
			time.Sleep(d)
		case "grandchild":
			cmd := exec.Command(os.Args[0], testServer, "ignoreterm", "sleep:20s")
			if err := cmd.Start(); err != nil {
				return 4
			}
			_ = os.WriteFile(arg, []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
		case "exit":
			return atoi(arg)
		default:
			fmt.Fprintf(os.Stderr, "unknown action %q\n", a)
			return 2
		}
	}
	return 0
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func unquote(s string) string {
	u, err := strconv.Unquote(s)
	if err != nil {
		panic(fmt.Sprintf("bad quoted action argument %s: %v", s, err))
	}
	return u
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprintf("bad number %q: %v", s, err))
	}
	return n
}

// writeStderr writes n bytes to stderr: 'x's, then "<END>".
func writeStderr(n int) {
	const end = "<END>"
	chunk := []byte(strings.Repeat("x", 64<<10))
	left := n - len(end)
	for left > 0 {
		k := min(left, len(chunk))
		_, _ = os.Stderr.Write(chunk[:k])
		left -= k
	}
	_, _ = os.Stderr.WriteString(end)
}

func writeNotification(method string, params any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	_, _ = os.Stdout.Write(append(b, '\n'))
}
