package stdiofake

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// wantFlood checks that stderr is exactly total bytes of marked lines.
func wantFlood(t *testing.T, stderr, marker string, total int) {
	t.Helper()
	if len(stderr) != total {
		t.Fatalf("stderr holds %d bytes; want %d", len(stderr), total)
	}
	lines := strings.SplitAfter(stderr, "\n")
	for i, l := range lines {
		if l == "" {
			continue
		}
		if !strings.HasSuffix(l, "\n") {
			t.Fatalf("stderr line %d %q does not end in a newline", i, l)
		}
		if last := i >= len(lines)-2; !last && !strings.HasPrefix(l, marker) {
			t.Fatalf("stderr line %d %q does not start with the marker", i, l)
		}
	}
}

func TestStderrFloodDuring(t *testing.T) {
	const total = 3*floodChunkBytes + 1234
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "stderr-flood", Bytes: total, When: "during", Marker: "S3CRET"})
		f.initialize()
		f.callTool(jsonrpc.IntID(1), "echo")
		f.wantCallText(jsonrpc.IntID(1), "ok echo")
		synctest.Wait()
		wantFlood(t, f.stderrText(), "S3CRET", total)
		r := f.readRecord()
		var notes []string
		for _, e := range r.Events {
			if e.Type == EventNote {
				notes = append(notes, e.Detail)
			}
		}
		if len(notes) == 0 || notes[len(notes)-1] != "flood done" {
			t.Errorf("notes %q; want the last to be %q", notes, "flood done")
		}
	})
}

func TestStderrFloodBefore(t *testing.T) {
	for _, total := range []int{1, 99, 100, 101, floodChunkBytes} {
		synctest.Test(t, func(t *testing.T) {
			f := startFake(t, Options{Case: "stderr-flood", Bytes: int64(total), When: "before", Marker: "S3CRET"})
			f.initialize()
			synctest.Wait()
			wantFlood(t, f.stderrText(), "S3CRET", total)
		})
	}
}

func TestStderrSecretExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := startFake(t, Options{Case: "stderr-secret-exit", Marker: "S3CRET"})
		f.initialize()
		f.callTool(jsonrpc.IntID(1), "echo")
		f.wantStatus(1)
		synctest.Wait()
		if got := strings.Count(f.stderrText(), "S3CRET"); got < 2 {
			t.Errorf("stderr holds the secret %d times; want at least 2", got)
		}
		if e, ok := f.readRecord().First(EventExit); !ok || !strings.Contains(e.Detail, "status 1") {
			t.Errorf("record: exit %+v; want one saying status 1", e)
		}
	})
}
