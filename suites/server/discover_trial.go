package server

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/suites/run"
)

// One call of the fixtures discovery (discover.go), what it shows, and
// which tool that showed a role serves it best.

// discoveryParallel is how many of the pass's calls run at once, each on
// its own connection.
const discoveryParallel = 4

// discoveryToken is the progress token of every call the pass makes.
var discoveryToken = jsonrpc.StringID("mcpconform-discovery")

// trial is one call of the pass and what the tool sent during it.
type trial struct {
	decl declaration
	tool mcp.Tool
	args map[string]any
	// shown counts, by role, the messages of the role the tool sent
	// before its result.
	shown map[string]int
	// result: the call was answered with a result (isError or not);
	// otherwise problem says what came instead, and late that it was
	// nothing within the patience.
	result  bool
	problem string
	late    bool
}

// runTrials makes every trial's call, discoveryParallel at a time.
func runTrials(ctx context.Context, cfg run.Options, t check.Transport, trials []*trial) {
	jobs := make(chan *trial)
	var wg sync.WaitGroup
	for range min(discoveryParallel, len(trials)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for tr := range jobs {
				tr.call(ctx, cfg, t)
			}
		}()
	}
	for _, tr := range trials {
		jobs <- tr
	}
	close(jobs)
	wg.Wait()
}

// call makes the trial's call on a connection of its own and records what
// the tool sent before its result; unanswered within the patience, the
// call is cancelled.
func (tr *trial) call(ctx context.Context, cfg run.Options, t check.Transport) {
	tr.shown = map[string]int{}
	c, err := openDiscovery(ctx, cfg, t, tr.decl)
	if err != nil {
		tr.problem = err.Error()
		return
	}
	defer c.close()
	id := jsonrpc.StringID("mcpconform-discovery-call")
	params := map[string]any{"name": tr.tool.Name, "arguments": tr.args, "_meta": map[string]any{"progressToken": discoveryToken}}
	patience, cancel := context.WithTimeout(ctx, cfg.Patience)
	defer cancel()
	m, err := exchange(patience, c, id, "tools/call", params, tr.decl.reply(tr))
	switch {
	case err != nil && patience.Err() != nil && ctx.Err() == nil:
		tr.problem, tr.late = fmt.Sprintf("no answer within %s (--patience): its call was cancelled", cfg.Patience), true
		if raw, err := jsonrpc.EncodeCall(jsonrpc.ID{}, "notifications/cancelled", map[string]any{"requestId": id, "reason": "mcpconform: the fixtures discovery waits no longer than --patience"}); err == nil {
			_ = c.send(raw)
		}
	case err != nil:
		tr.problem = err.Error()
	case m.Error != nil:
		tr.problem = "answered " + describe(m)
	default:
		tr.result = true
	}
}

// reply is how the pass answers what the server sends during a call under
// decl, recording in tr (nil: nothing) what it shows: progress for the
// call's token and log messages; the requests to the client it asks of one
// that declared them, each answered as a client would (answerAsClient);
// any other request as the checks answer one they do not judge.
func (decl declaration) reply(tr *trial) func(*jsonrpc.Message) *jsonrpc.Message {
	return func(m *jsonrpc.Message) *jsonrpc.Message {
		role := shownRole(m)
		if tr != nil && role != "" && slices.Contains(decl.roles, role) {
			tr.shown[role]++
		}
		if m.Kind() != jsonrpc.KindRequest {
			return nil
		}
		if decl.caps != nil {
			return answerAsClient(m)
		}
		return otherReply(m)
	}
}

// shownRole is the fixture role a message the server sent during a call
// shows, or "".
func shownRole(m *jsonrpc.Message) string {
	switch m.Method {
	case "notifications/progress":
		var p struct {
			ProgressToken jsonrpc.ID `json:"progressToken"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.ProgressToken.Key() == discoveryToken.Key() {
			return "progress"
		}
	case "notifications/message":
		return "logging"
	case "sampling/createMessage":
		return "sampling"
	case "roots/list":
		return "roots"
	case "elicitation/create":
		var p struct {
			Mode string `json:"mode"`
		}
		_ = json.Unmarshal(m.Params, &p) // unreadable: form mode, the default
		if p.Mode == "url" {
			return "elicitation-url"
		}
		return "elicitation"
	}
	return ""
}

// evidence says what a tool sent that shows role.
var evidence = map[string]string{
	"progress":        "notifications/progress for its call's progressToken",
	"logging":         "notifications/message before its result",
	"sampling":        "sampling/createMessage",
	"elicitation":     "elicitation/create in form mode",
	"elicitation-url": "elicitation/create in URL mode",
	"roots":           "roots/list",
}

// bestTrial is the tool that showed role among the trials answered with a
// result: the one whose name or description suggests the role first, then
// the one that showed the fewest roles (a tool that does one thing shows
// it alone), then by name.
func bestTrial(trials []*trial, role string) (run.Found, bool) {
	var shown []*trial
	for _, tr := range trials {
		if tr.result && tr.shown[role] > 0 {
			shown = append(shown, tr)
		}
	}
	if len(shown) == 0 {
		return run.Found{}, false
	}
	slices.SortStableFunc(shown, func(a, b *trial) int {
		return cmp.Or(boolFirst(hints(a.tool, role), hints(b.tool, role)), cmp.Compare(len(a.shown), len(b.shown)), cmp.Compare(a.tool.Name, b.tool.Name))
	})
	tr := shown[0]
	how := fmt.Sprintf("found by calling %s: it sent %s", tr.tool.Name, evidence[role])
	if tr.decl.caps != nil {
		how += " to a client that declared " + tr.decl.name
	}
	return run.Found{Role: role, Fixture: run.Fixture{Tool: tr.tool.Name, Arguments: tr.args}, Tool: tr.tool, How: how}, true
}

// roleWords are, by role, the words of a tool's name or description that
// suggest it shows the role: what ranks the tools that showed it, and
// which tools left alone a check of the role would call.
var roleWords = map[string]*regexp.Regexp{
	"progress":        regexp.MustCompile(`\bprogress`),
	"logging":         regexp.MustCompile(`\blog(s|ged|ger|ging)?\b`),
	"sampling":        regexp.MustCompile(`\bsampl`),
	"elicitation":     regexp.MustCompile(`\belicit`),
	"elicitation-url": regexp.MustCompile(`\belicit`),
	"roots":           regexp.MustCompile(`\broots?\b`),
}

// urlWord marks the URL mode of elicitation.
var urlWord = regexp.MustCompile(`\burl\b`)

// hints says whether tool's name or description suggests role: its words
// (test_tool_with_logging, getRootsList and "logs a message" alike) hold
// the role's word; the URL mode of elicitation also says url, form mode
// does not.
func hints(tool mcp.Tool, role string) bool {
	text := words(tool.Name) + " " + words(tool.Description)
	if !roleWords[role].MatchString(text) {
		return false
	}
	switch role {
	case "elicitation-url":
		return urlWord.MatchString(text)
	case "elicitation":
		return !urlWord.MatchString(text)
	}
	return true
}

// words is s in lower case with its words apart: a separator (_ - . /) or
// a change from lower to upper case is a space.
func words(s string) string {
	var b strings.Builder
	prev := ' '
	for _, r := range s {
		switch {
		case strings.ContainsRune("_-./", r):
			r = ' '
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			b.WriteRune(' ')
		}
		b.WriteRune(unicode.ToLower(r))
		prev = r
	}
	return b.String()
}
