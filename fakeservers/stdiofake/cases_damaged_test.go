package stdiofake

import (
	"testing"
	"testing/synctest"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

func TestDamagedLinesClassify(t *testing.T) {
	for _, shape := range DamagedShapes() {
		line := DamagedLine(shape)
		if c := jsonrpc.ClassifyLine([]byte(line)); c != jsonrpc.ClassDamaged {
			t.Errorf("shape %s: %q classifies as %s; want damaged", shape, line, c)
		}
	}
	if DamagedLine("square") != "" {
		t.Error(`DamagedLine("square") is not empty`)
	}
}

func TestDamagedCase(t *testing.T) {
	for _, shape := range DamagedShapes() {
		t.Run(shape, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := startFake(t, Options{Case: "damaged", Shape: shape})
				f.initialize()
				f.callTool(jsonrpc.StringID("call-1"), "echo")
				line := f.nextLine()
				if c := jsonrpc.ClassifyLine([]byte(line)); c != jsonrpc.ClassDamaged {
					t.Errorf("%q classifies as %s; want damaged", line, c)
				}
				if shape == "truncated-result" {
					whole := string(fakeservers.Encode(fakeservers.ToolCall{Req: &jsonrpc.Message{ID: jsonrpc.StringID("call-1")}, Name: "echo"}.OK()))
					if line != whole[:len(whole)/2] {
						t.Errorf("truncated-result wrote %q; want the first half of %q", line, whole)
					}
				}
				// The call stays unanswered, the fake keeps serving.
				f.request(2, "ping", nil)
				f.wantResult(jsonrpc.IntID(2))
				f.closeStdin()
				f.wantStatus(0)
			})
		})
	}
}

func TestNonObjectCase(t *testing.T) {
	for _, v := range NonObjectValues() {
		t.Run(v, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := startFake(t, Options{Case: "non-object", Shape: v})
				f.initialize()
				f.callTool(jsonrpc.IntID(1), "echo")
				line := f.nextLine()
				if line != v {
					t.Errorf("wrote %q; want %q", line, v)
				}
				if c := jsonrpc.ClassifyLine([]byte(line)); c != jsonrpc.ClassNonObject {
					t.Errorf("%q classifies as %s; want non-object JSON", line, c)
				}
				f.request(2, "ping", nil)
				f.wantResult(jsonrpc.IntID(2))
			})
		})
	}
}
