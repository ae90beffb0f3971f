package main

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
)

// toolProxy fronts the reference server over HTTP: it records the name of
// every tools/call and, in each tools/list answer, replaces the annotations
// of the tools in annotate (by name) with the JSON given.
type toolProxy struct {
	URL    string
	mu     sync.Mutex
	called map[string]int
}

func newToolProxy(t *testing.T, annotate map[string]string) *toolProxy {
	t.Helper()
	url, stop, err := serve.Start(serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop() })
	target, _ := neturl.Parse(url)
	target.Path = "" // the proxy keeps the request's own path, /mcp
	proxy := httputil.NewSingleHostReverseProxy(target)
	tp := &toolProxy{called: map[string]int{}}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var m struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &m)
		if m.Method == "tools/call" {
			tp.mu.Lock()
			tp.called[m.Params.Name]++
			tp.mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if m.Method != "tools/list" {
			proxy.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		proxy.ServeHTTP(rec, r)
		answer := rec.Body.Bytes()
		for name, annotations := range annotate {
			tool := regexp.MustCompile(`("name":"` + regexp.QuoteMeta(name) + `".*?)"annotations":\{[^}]*\}`)
			answer = tool.ReplaceAll(answer, []byte(`${1}"annotations":`+annotations))
		}
		maps.Copy(w.Header(), rec.Header())
		w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		w.WriteHeader(rec.Code)
		_, _ = w.Write(answer)
	}))
	t.Cleanup(front.Close)
	tp.URL = front.URL + "/mcp"
	return tp
}

// calls returns the tools called so far and forgets them.
func (tp *toolProxy) calls() map[string]int {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	c := tp.called
	tp.called = map[string]int{}
	return c
}

// TestCallToolsPolicy certifies the reference over HTTP with two tools
// annotated otherwise: test_simple_text without readOnlyHint, and
// test_image_content open-world. By default the checks call every other
// tool and leave those two alone, and every report says so (a parallel run
// merges its workers' lists); --call-tools all calls them, a tool the
// fixtures file names is called, none calls nothing and makes a check that
// needs a tool UNIMPLEMENTED with the way out; the flag wins over the file's
// call_tools.
func TestCallToolsPolicy(t *testing.T) {
	t.Parallel()
	tp := newToolProxy(t, map[string]string{
		"test_simple_text":   `{"title":"Simple text"}`,
		"test_image_content": `{"readOnlyHint":true,"openWorldHint":true}`,
	})
	const checks = "http.server.get.no-responses,http.server.streams.no-duplicates,http.server.wire.schema-valid"
	fixtures := func(body string) string {
		path := filepath.Join(t.TempDir(), "fixtures.yaml")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	defaultLeft := []toolpolicy.LeftAlone{{Name: "test_image_content", Why: toolpolicy.WhyOpenWorld}, {Name: "test_simple_text", Why: toolpolicy.WhyNotReadOnly}}
	for _, tc := range []struct {
		name  string
		args  []string
		left  []toolpolicy.LeftAlone
		spare []string // tools never called
		none  bool     // no tool called, the checks UNIMPLEMENTED
	}{
		{"default", nil, defaultLeft, []string{"test_simple_text", "test_image_content"}, false},
		{"default in one process", []string{"--parallel", "1"}, defaultLeft, []string{"test_simple_text", "test_image_content"}, false},
		{"all", []string{"--call-tools", "all"}, nil, nil, false},
		{"named by the fixtures file", []string{"--fixtures", fixtures("failing: {tool: test_simple_text}\n")},
			defaultLeft[:1], []string{"test_image_content"}, false},
		{"the file's call_tools", []string{"--fixtures", fixtures("call_tools: all\n")}, nil, nil, false},
		{"the flag over the file's call_tools", []string{"--call-tools", "read-only", "--fixtures", fixtures("call_tools: all\n")},
			defaultLeft, []string{"test_simple_text", "test_image_content"}, false},
		{"unsafe whatever the mode", []string{"--call-tools", "all", "--fixtures", fixtures("unsafe: [test_audio_content]\n")},
			[]toolpolicy.LeftAlone{{Name: "test_audio_content", Why: toolpolicy.WhyUnsafe}}, []string{"test_audio_content"}, false},
		{"none", []string{"--call-tools", "none"}, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := filepath.Join(t.TempDir(), "r.md")
			html := filepath.Join(t.TempDir(), "r.html")
			code, ix, out := runServer(t, append([]string{"--url", tp.URL, "--only", checks, "--markdown", md, "--html", html}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, out)
			}
			called := tp.calls()
			if ix.Tools == nil {
				t.Fatalf("the JSON index has no tools\n%s", out)
			}
			if got := slices.Sorted(maps.Keys(called)); !slices.Equal(ix.Tools.Called, got) && !tc.none {
				t.Errorf("the index says %v were called; the server saw calls of %v", ix.Tools.Called, got)
			}
			for _, name := range tc.spare {
				if called[name] > 0 {
					t.Errorf("%s was called %d times", name, called[name])
				}
			}
			if tc.none {
				if len(called) > 0 || len(ix.Tools.Called) > 0 {
					t.Errorf("--call-tools none called %v (index: %v)", called, ix.Tools.Called)
				}
				if len(ix.Tools.LeftAlone) < 10 || ix.Tools.LeftAlone[0].Why != toolpolicy.WhyNone {
					t.Errorf("left alone: %v, want every tool, because call-tools is none", ix.Tools.LeftAlone)
				}
				for _, c := range ix.Checks {
					if c.ID == "http.server.get.no-responses" && (c.Outcome != check.Unimplemented || !strings.Contains(c.Message, "allow with --call-tools read-only or all")) {
						t.Errorf("%s: %s %q, want UNIMPLEMENTED with the way out", c.ID, c.Outcome, c.Message)
					}
				}
				return
			}
			if len(called) < 10 {
				t.Errorf("only %v were called", called)
			}
			if !slices.Equal(ix.Tools.LeftAlone, tc.left) && !(len(tc.left) == 0 && len(ix.Tools.LeftAlone) == 0) {
				t.Errorf("left alone: %v, want %v", ix.Tools.LeftAlone, tc.left)
			}
			summary := ix.Tools.Summary()
			if !strings.Contains(out, summary) {
				t.Errorf("the console does not say %q:\n%s", summary, out)
			}
			mdText, _ := os.ReadFile(md)
			htmlText, _ := os.ReadFile(html)
			for _, l := range tc.left {
				if !strings.Contains(string(mdText), "| "+strings.ReplaceAll(l.Name, "_", `\_`)+" | "+l.Why+" |") {
					t.Errorf("the Markdown has no row for %s left alone:\n%s", l.Name, mdText)
				}
				if !strings.Contains(string(htmlText), "<tr><td><code>"+l.Name+"</code></td><td>"+l.Why+"</td></tr>") {
					t.Errorf("the HTML has no row for %s left alone", l.Name)
				}
			}
			if !strings.Contains(string(mdText), "### Tools") || !strings.Contains(string(htmlText), `<details id="tools">`) {
				t.Error("the Markdown or the HTML has no Tools section")
			}
		})
	}
}
