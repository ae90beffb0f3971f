package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// elsewhere are the server mutants of the stdio transport and the serve
// command; their packages test them.
var elsewhere = []mutant.Name{mutant.ParseErrorWithID, mutant.InvalidRequestAsMethodMissing, mutant.StdoutBanner, mutant.IgnoresStdinEOF, mutant.IgnoresSIGTERM, mutant.StdoutBatchLine, mutant.BatchRefused}

// observer runs a scenario against a server (the reference, or mutant m)
// and reports whether the server broke the mutant's rule, and what it saw.
type observer func(t *testing.T, m mutant.Name) (broken bool, saw string)

// undeclaredRequest observes whether a client that declared nothing was
// sent the request tool makes (CX-08).
func undeclaredRequest(tool string) observer {
	return func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m).answering(replyError(jsonrpc.CodeMethodNotFound))
		p.initialize("{}")
		p.tool(tool, `{"prompt":"x","message":"y"}`)
		sent := p.drain()
		return len(sent) > 1 && sent[0].Kind() == jsonrpc.KindRequest, fmt.Sprint(methods(sent))
	}
}

// serverRuleOf observes, for each mutant of the reference MCP server, the
// one rule it breaks.
var serverRuleOf = map[mutant.Name]observer{
	mutant.UnknownVersionEchoed: func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call("initialize", initParams("1999-01-01", "{}"))
		return strings.Contains(string(resp.Result), `"protocolVersion":"1999-01-01"`), string(resp.Result)
	},
	mutant.InitializeNoServerInfo: func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call("initialize", initParams("2025-11-25", "{}"))
		return !strings.Contains(string(resp.Result), `"serverInfo"`), string(resp.Result)
	},
	mutant.PingResultNotEmpty: func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call("ping", "")
		return string(resp.Result) != "{}", string(resp.Result)
	},
	mutant.UnknownMethodWrongCode: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.call("mcpconform/none", "{}")
		return resp.Error == nil || resp.Error.Code != jsonrpc.CodeMethodNotFound, fmt.Sprintf("%+v", resp.Error)
	},
	mutant.PaginationRepeats: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		first := p.call("tools/list", "{}")
		var page struct {
			Tools      []struct{ Name string }
			NextCursor string
		}
		_ = json.Unmarshal(first.Result, &page)
		last := page.Tools[len(page.Tools)-1].Name
		next := p.call("tools/list", `{"cursor":"`+page.NextCursor+`"}`)
		return strings.Contains(string(next.Result), `"`+last+`"`), string(next.Result)
	},
	mutant.PromptsCursorIgnored: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		var first struct {
			Prompts    []Prompt
			NextCursor string
		}
		_ = json.Unmarshal(p.call("prompts/list", "{}").Result, &first)
		next := p.call("prompts/list", `{"cursor":"`+first.NextCursor+`"}`)
		return strings.Contains(string(next.Result), `"`+first.Prompts[0].Name+`"`), string(next.Result)
	},
	mutant.ReverseErrorDropsCall: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m).answering(replyError(-1))
		p.initialize(allCapabilities)
		resp := p.handle(msg(p.id(), "tools/call", `{"name":"roots"}`))
		return resp == nil, fmt.Sprintf("%+v", resp)
	},
	mutant.ElicitDeclineDropsCall: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m).answering(elicitAction("decline"))
		p.initialize(allCapabilities)
		resp := p.handle(msg(p.id(), "tools/call", `{"name":"test_elicitation","arguments":{"message":"m"}}`))
		return resp == nil, fmt.Sprintf("%+v", resp)
	},
	mutant.LoggingUndeclared: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		init := p.call("initialize", initParams("2025-11-25", "{}"))
		set := p.call("logging/setLevel", `{"level":"debug"}`)
		return set.Error == nil && !strings.Contains(string(init.Result), `"logging"`), string(init.Result)
	},
	mutant.ReusedIDDropped: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		p.callID(jsonrpc.IntID(30), "ping", "")
		resp := p.handle(msg(jsonrpc.IntID(30), "ping", ""))
		return resp == nil, fmt.Sprintf("%+v", resp)
	},
	mutant.NoPingBeforeInit: func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).call("ping", "")
		return resp.Error != nil, resp.Kind().String()
	},
	mutant.AnswersNotifications: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.notify("notifications/unknown", `{}`)
		return resp != nil, fmt.Sprintf("%+v", resp)
	},
	mutant.IDTypeChanged: func(t *testing.T, m mutant.Name) (bool, string) {
		resp := newPeer(t, m).handle(msg(jsonrpc.IntID(2), "ping", ""))
		return resp.ID != jsonrpc.IntID(2), resp.ID.String()
	},
	mutant.InvalidCursorAccepted: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.call("tools/list", `{"cursor":"not-a-cursor"}`)
		return resp.Error == nil, resp.Kind().String()
	},
	mutant.UnknownToolNotError: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.tool("no_such_tool", "{}")
		return resp.Error == nil, resp.Kind().String()
	},
	mutant.ToolFailureAsRPCError: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.tool("test_error_handling", "{}")
		return resp.Error != nil, resp.Kind().String()
	},
	mutant.LogBelowThreshold: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		p.call("logging/setLevel", `{"level":"critical"}`)
		p.drain()
		levels := loggedLevels(t, p)
		return !slices.Equal(levels, logLevels[5:]), fmt.Sprint(levels)
	},
	mutant.InvalidLevelAccepted: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.call("logging/setLevel", `{"level":"loud"}`)
		return resp.Error == nil, resp.Kind().String()
	},
	mutant.ProgressWithoutToken: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		progress, _ := progressCall(t, p, "test_tool_with_progress", "{}", "")
		return len(progress) > 0, fmt.Sprintf("%d progress notifications", len(progress))
	},
	mutant.ProgressNotIncreasing: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		progress, _ := progressCall(t, p, "progress", `{"steps":2}`, `{"progressToken":"s"}`)
		values := progressValues(t, progress)
		return !slices.IsSorted(values) || len(slices.Compact(slices.Clone(values))) != len(values), fmt.Sprint(values)
	},
	mutant.ProgressAfterResponse: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		progressCall(t, p, "progress", `{"steps":1}`, `{"progressToken":"late"}`)
		p.call("ping", "")
		sent := p.drain()
		return len(ofMethod(sent, "notifications/progress")) > 0 || len(p.lateSends()) > 0, fmt.Sprint(methods(sent))
	},
	mutant.AnswersCancelledRequest: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		done := startSlow(t, p, jsonrpc.IntID(7))
		p.notify("notifications/cancelled", `{"requestId":7}`)
		resp := <-done
		return resp != nil, fmt.Sprintf("%+v", resp)
	},
	mutant.UnknownCancelAnswered: func(t *testing.T, m mutant.Name) (bool, string) {
		p := newPeer(t, m)
		p.initialize("{}")
		resp := p.notify("notifications/cancelled", `{"requestId":99}`)
		return resp != nil, fmt.Sprintf("%+v", resp)
	},
	mutant.SamplingWithoutCapability:    undeclaredRequest("test_sampling"),
	mutant.ElicitationWithoutCapability: undeclaredRequest("test_elicitation"),
	mutant.RootsWithoutCapability:       undeclaredRequest("roots"),
	mutant.ReverseRequestNoTimeout: func(t *testing.T, m mutant.Name) (broken bool, saw string) {
		synctest.Test(t, func(t *testing.T) {
			p := newPeerWith(t, Options{ReverseTimeout: 5 * time.Second, Mutant: m})
			p.initialize(allCapabilities)
			done := p.start(jsonrpc.IntID(20), "tools/call", `{"name":"roots"}`)
			time.Sleep(time.Hour)
			synctest.Wait()
			select {
			case <-done:
				saw = "an answer within the hour"
			default:
				broken, saw = true, "no answer after an hour"
				p.notify("notifications/cancelled", `{"requestId":20}`)
				<-done
			}
		})
		return broken, saw
	},
}

func TestEachServerProtocolMutantBreaksItsRule(t *testing.T) {
	for _, m := range mutant.ForRole("server") {
		if !mutant.OfServerProtocol(m.Name) || slices.Contains(elsewhere, m.Name) {
			continue
		}
		t.Run(string(m.Name), func(t *testing.T) {
			observe, ok := serverRuleOf[m.Name]
			if !ok {
				t.Fatalf("no test observes the rule mutant %s breaks (%s)", m.Name, m.Description)
			}
			if broken, saw := observe(t, ""); broken {
				t.Errorf("the reference breaks the rule of %s (%s): saw %s", m.Name, m.Description, saw)
			}
			if broken, saw := observe(t, m.Name); !broken {
				t.Errorf("mutant %s keeps its rule (%s): saw %s", m.Name, m.Description, saw)
			}
		})
	}
}
