package fuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/serve"
)

func frames(lines ...string) []Frame {
	fs := make([]Frame, len(lines))
	for i, l := range lines {
		fs[i] = Frame{Body: []byte(l)}
	}
	return fs
}

const initFrame = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`

func TestExecuteReferenceHolds(t *testing.T) {
	out, err := Execute(reference(), frames(initFrame,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{bad`, `[1,2]`, `{"jsonrpc":"2.0","id":3.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9,"method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
	), ExecOptions{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if out.Violation != nil {
		t.Fatalf("the reference broke %v", out.Violation)
	}
	if len(out.Warnings) > 0 {
		t.Errorf("warnings: %v", out.Warnings)
	}
}

func TestExecuteSeesAnExit(t *testing.T) {
	out, err := Execute(Target{Command: []string{"sh", "-c", "read line; exit 3"}}, frames(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), ExecOptions{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if out.Violation == nil || out.Violation.Invariant != Alive {
		t.Fatalf("got %v, want alive broken", out.Violation)
	}
	t.Log(out.Violation)
}

func TestExecuteSeesStdoutNoise(t *testing.T) {
	out, _ := Execute(Target{Command: []string{"sh", "-c", `read line; echo hello; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; sleep 5`}}, frames(`{"jsonrpc":"2.0","id":1,"method":"ping"}`), ExecOptions{Timeout: time.Second})
	if out.Violation == nil || out.Violation.Invariant != StdoutJSON {
		t.Fatalf("got %v, want stdout-json broken", out.Violation)
	}
	t.Log(out.Violation)
}

func BenchmarkPingCeiling(b *testing.B) {
	c, err := reference().open(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close(DefaultTimeout)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		raw := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)
		if _, err := c.send(Frame{Body: []byte(raw)}); err != nil {
			b.Fatal(err)
		}
		<-c.messages()
	}
}

func BenchmarkStart(b *testing.B) {
	for i := 0; i < b.N; i++ {
		c, err := reference().open(nil)
		if err != nil {
			b.Fatal(err)
		}
		c.send(Frame{Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)})
		<-c.messages()
		c.close(DefaultTimeout)
	}
}

// BenchmarkFuzzRun is the whole fuzzer against the reference for a
// second per iteration of the benchmark: executions per second, to read
// beside BenchmarkPingCeiling (mcpconform fuzz --bench runs both in one
// command).
func BenchmarkFuzzRun(b *testing.B) {
	var execs int64
	var elapsed time.Duration
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), Options{Target: reference(), Seed: int64(i + 1), Duration: time.Second, Slow: []string{"slow"}})
		if err != nil {
			b.Fatal(err)
		}
		execs, elapsed = execs+rep.Stats.Executions, elapsed+rep.Stats.Elapsed
	}
	b.ReportMetric(float64(execs)/elapsed.Seconds(), "execs/s")
}

// BenchmarkExecutePings is the executor alone on ping frames (each with
// its probe) over one reference process per 200 frames: executions per
// second, beside BenchmarkPingCeiling's round trips.
func BenchmarkExecutePings(b *testing.B) {
	lines := make([]string, 200)
	for i := range lines {
		lines[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)
	}
	fs := frames(lines...)
	var execs int
	start := time.Now()
	for i := 0; i < b.N; i++ {
		out, err := Execute(reference(), fs, ExecOptions{})
		if err != nil || out.Violation != nil {
			b.Fatal(err, out.Violation)
		}
		execs += out.Sent
	}
	b.ReportMetric(float64(execs)/time.Since(start).Seconds(), "execs/s")
}

// TestPingCeilingOverHTTP: the ceiling's connections open a session
// first; over HTTP a ping outside one is refused, and the bench exited 2.
func TestPingCeilingOverHTTP(t *testing.T) {
	url, stop, err := serve.Start(serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	s, err := PingCeiling(context.Background(), Target{URL: url}, 200*time.Millisecond, 2, ExecOptions{Timeout: 10 * time.Second})
	if err != nil || s.Executions == 0 {
		t.Fatalf("PingCeiling over HTTP: %d round trips, error %v", s.Executions, err)
	}
}

// TestExecuteSchemaOracles: a result the version's schema refuses breaks
// schema-valid, structuredContent off its outputSchema breaks
// output-schema, and the reference breaks neither with the same frames.
func TestExecuteSchemaOracles(t *testing.T) {
	call := func(id int, tool string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q}}`, id, tool)
	}
	init0618 := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`
	weather := json.RawMessage(`{"type":"object","properties":{"temperature":{"type":"number"},"conditions":{"type":"string"}},"required":["temperature","conditions"]}`)
	cases := []struct {
		mutant string
		frames []Frame
		want   Invariant
	}{
		{"planted-image-without-mime-type", frames(init0618, call(2, "test_image_content")), SchemaValid},
		{"planted-structured-drift", frames(init0618, call(2, "test_structured_content"), call(3, "test_structured_content")), OutputSchema},
		{"", frames(init0618, call(2, "test_image_content"), call(3, "test_structured_content"), call(4, "test_structured_content")), ""},
	}
	for _, c := range cases {
		var args []string
		if c.mutant != "" {
			args = []string{"--mutant", c.mutant}
		}
		out, err := Execute(reference(args...), c.frames, ExecOptions{Timeout: time.Second, Outputs: map[string]json.RawMessage{"test_structured_content": weather}})
		if err != nil {
			t.Fatal(err)
		}
		var got Invariant
		if out.Violation != nil {
			got = out.Violation.Invariant
		}
		if got != c.want {
			t.Errorf("mutant %q: broke %q (%v), want %q", c.mutant, got, out.Violation, c.want)
		}
	}
}

// TestASlowToolCallIsCancelledNotFound: a tools/call still unanswered at
// the timeout is a tool that takes long (no rule bounds a tool's time), so
// the fuzzer cancels it and judges the server by the probe ping instead; a
// server that answers nothing at all is still found, by that probe.
func TestASlowToolCallIsCancelledNotFound(t *testing.T) {
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`
	out, err := Execute(reference(), frames(initFrame, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, call), ExecOptions{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if out.Violation != nil {
		t.Fatalf("a slow tool call broke %v", out.Violation)
	}
	mute := Target{Command: []string{"sh", "-c", "cat >/dev/null"}}
	out, err = Execute(mute, frames(call), ExecOptions{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if out.Violation == nil || out.Violation.Invariant != AnswersPing {
		t.Fatalf("a server that answers nothing: got %v, want answers-ping broken", out.Violation)
	}
}
