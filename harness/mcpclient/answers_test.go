package mcpclient

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
)

var sampleParams = json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":16}`)

var formParams = json.RawMessage(`{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{"name":{"type":"string","default":"x"}}}}`)

// TestFixedAnswers observes, for the reference and each mutant of the
// client's answers, the rule the mutant breaks.
func TestFixedAnswers(t *testing.T) {
	answers := target.Answers{Sampling: `{"role":"assistant","content":{"type":"text","text":"t"},"model":"m"}`,
		Elicitation: target.ElicitDecline, Roots: []target.Root{{URI: "file:///r"}}}
	for _, m := range []mutant.Name{"", mutant.SamplingNoModel, mutant.ElicitationDeclineIgnored, mutant.RootsNotFile} {
		s := &Session{opts: Options{Answers: answers, Mutant: m}}
		res, _, _ := s.fixedAnswer("sampling/createMessage", sampleParams)
		if _, has := res.(map[string]any)["model"]; has == (m == mutant.SamplingNoModel) {
			t.Errorf("mutant %q: sampling result %v (SM-02)", m, res)
		}
		res, _, _ = s.fixedAnswer("elicitation/create", formParams)
		if action := res.(map[string]any)["action"]; (action == target.ElicitDecline) == (m == mutant.ElicitationDeclineIgnored) {
			t.Errorf("mutant %q: declined elicitation answered %v (EL-17)", m, res)
		}
		res, _, _ = s.fixedAnswer("roots/list", nil)
		uri := res.(map[string]any)["roots"].([]target.Root)[0].URI
		if strings.HasPrefix(uri, "file://") == (m == mutant.RootsNotFile) {
			t.Errorf("mutant %q: root %q (RT-03)", m, uri)
		}
	}
	for _, m := range []mutant.Name{"", mutant.ElicitationNoDefaults} {
		s := &Session{opts: Options{Answers: target.Answers{Elicitation: target.ElicitAccept}, Mutant: m}}
		res, _, _ := s.fixedAnswer("elicitation/create", formParams)
		content := res.(map[string]any)["content"].(map[string]any)
		if (content["name"] == "x") == (m == mutant.ElicitationNoDefaults) {
			t.Errorf("mutant %q: accepted content %v (EL-06)", m, content)
		}
	}
	s := &Session{opts: Options{Answers: target.Answers{Sampling: target.SamplingReject}}}
	if _, rpcErr, _ := s.fixedAnswer("sampling/createMessage", sampleParams); rpcErr == nil || rpcErr.Code != CodeUserRejected {
		t.Errorf("a refused sample answered %v; want error -1 (SM-06)", rpcErr)
	}
	for _, m := range []mutant.Name{"", mutant.SamplingParamsUnchecked} {
		s := &Session{opts: Options{Answers: answers, Mutant: m}}
		_, rpcErr, _ := s.fixedAnswer("sampling/createMessage", json.RawMessage(`{"maxTokens":16}`))
		if refused := rpcErr != nil && rpcErr.Code == jsonrpc.CodeInvalidParams; refused == (m == mutant.SamplingParamsUnchecked) {
			t.Errorf("mutant %q: a sample without messages answered with error %v (JR-23)", m, rpcErr)
		}
	}
	if _, _, ok := (&Session{}).fixedAnswer("roots/list", nil); ok {
		t.Error("roots answered without a fixed answer")
	}
}

// TestAnnounceRoots observes mutant RootsListChangedUndeclared's
// notification, which the reference never sends (LC-11).
func TestAnnounceRoots(t *testing.T) {
	for _, m := range []mutant.Name{"", mutant.RootsListChangedUndeclared} {
		f := newFakeTransport()
		s := &Session{t: f, opts: Options{Answers: target.Answers{Roots: []target.Root{{URI: "file:///r"}}}, Mutant: m}}
		s.announceRoots()
		if sent := len(f.sent) > 0; sent != (m == mutant.RootsListChangedUndeclared) {
			t.Errorf("mutant %q: notifications/roots/list_changed sent: %v", m, sent)
		}
		if caps := s.declared(legacyCapabilities()); caps["roots"] == nil || caps["sampling"] != nil {
			t.Errorf("declared %v; want roots and no sampling", caps)
		}
	}
}
