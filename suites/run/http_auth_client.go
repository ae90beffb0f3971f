package run

import (
	"cmp"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
	"github.com/mcpconform/mcpconform/fakeservers/httpfake"
	"github.com/mcpconform/mcpconform/fakeservers/resourcefake"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// ProtectedSetup is what a check of a client's OAuth 2.1 puts before it:
// one authorization server (two for a migration, Next), the protected
// front (Resource, without its Upstream and servers, which
// RunProtectedHTTPClient fills in) and the MCP server behind it (Fake,
// well-behaved when its Case is empty).
type ProtectedSetup struct {
	AS       authfake.Options
	Next     *authfake.Options
	Resource resourcefake.Options
	Fake     httpfake.Options
}

// ProtectedRun is what a check saw of a client of a protected MCP server:
// its adapter's output and what reached the MCP server behind the front
// (HTTPClientRun), every request of the front (Resource) and of each
// authorization server (AS, then Next).
type ProtectedRun struct {
	*HTTPClientRun
	URL      string // the endpoint the client was given
	Resource []resourcefake.Request
	Migrated bool // the resource moved to the second authorization server
	AS, Next ASRecord
}

// ASRecord is what one authorization server of a run saw.
type ASRecord struct {
	URL        string // its issuer
	Requests   []authfake.Request
	Registered []string // the client IDs it issued
}

// RunProtectedHTTPClient starts the authorization server(s) of s, the MCP
// server and the protected front on 127.0.0.1, and runs the client's
// adapter with the front's URL and nothing else: MCPCONFORM_AUTH_TOKEN is
// unset, so its client must find the authorization server itself. Every
// secret the servers minted is masked in what the check records, and the
// check's transcript is the HTTP exchanges of the front and the servers,
// their secrets redacted.
func (c *C) RunProtectedHTTPClient(s ProtectedSetup, inv target.Invocation) *ProtectedRun {
	c.requireTransport(transportHTTP)
	if s.Fake.Case == "" {
		s.Fake.Case = "well-behaved"
	}
	c.inEra(&s.Fake.Era, &inv, transportHTTP)
	as, err := authfake.Start(s.AS)
	if err != nil {
		c.harnessError(err)
	}
	defer as.Close()
	var next *authfake.AS
	if s.Next != nil {
		if next, err = authfake.Start(*s.Next); err != nil {
			c.harnessError(err)
		}
		defer next.Close()
	}
	f, err := httpfake.Start(s.Fake)
	if err != nil {
		c.harnessError(err)
	}
	defer f.Close()
	s.Resource.Upstream, s.Resource.AS, s.Resource.Next = f.URL(), as, next
	res, err := resourcefake.Start(s.Resource)
	if err != nil {
		c.harnessError(err)
	}
	defer res.Close()
	inv.Case = c.D.ID
	inv.Transport = "http"
	inv.ServerURL = res.URL()
	inv.AuthToken = "" // the client authorizes itself
	if inv.CallTimeout <= 0 {
		inv.CallTimeout = c.cfg.Patience
	}
	if inv.Deadline <= 0 {
		inv.Deadline = c.cfg.CheckDeadline
	}
	r, err := target.Adapter{Command: c.cfg.ClientAdapter}.Run(c.Ctx, inv)
	// The front first: a request it passed on finishes before the MCP
	// server and the authorization servers stop.
	_ = res.Close()
	for _, a := range []*authfake.AS{as, next} {
		if a != nil {
			for _, sec := range a.Minted() {
				c.Secret(sec)
			}
		}
	}
	if err != nil {
		c.harnessError(err)
	}
	out := &ProtectedRun{
		HTTPClientRun: &HTTPClientRun{Run: r, Requests: f.Requests(), MaxConcurrent: f.MaxConcurrent()},
		URL:           res.URL(),
		Resource:      res.Requests(),
		Migrated:      res.Migrated(),
		AS:            ASRecord{URL: as.URL(), Requests: as.Requests(), Registered: as.Registered()},
	}
	if next != nil {
		out.Next = ASRecord{URL: next.URL(), Requests: next.Requests(), Registered: next.Registered()}
	}
	for _, q := range out.Resource {
		c.Secret(q.Token)
	}
	c.entries = authTranscript(out)
	c.judgeRun(r, inv)
	return out
}

// secretParams are the query and form parameters whose values a transcript
// never shows.
var secretParams = []string{"code", "code_verifier", "client_secret", "access_token", "refresh_token", "client_assertion", "assertion", "id_token"}

// authTranscript renders the HTTP exchanges of a protected run in the order
// they arrived: the front's and each authorization server's, one note each,
// with secret parameters and Authorization values redacted.
func authTranscript(r *ProtectedRun) []transcript.Entry {
	type line struct {
		at   time.Time
		text string
	}
	var lines []line
	for _, q := range r.Resource {
		text := fmt.Sprintf("MCP server: %s %s", q.Method, withQuery(q.Path, q.RawQuery))
		if len(q.Methods) > 0 {
			text += " (" + strings.Join(q.Methods, ", ") + ")"
		}
		text += authorizationNote(q.Header.Get(mcp.HeaderAuthorization))
		text += fmt.Sprintf(" → %d", q.Status)
		lines = append(lines, line{q.Time, text})
	}
	for _, as := range []struct {
		name string
		rec  ASRecord
	}{{"authorization server", r.AS}, {"second authorization server", r.Next}} {
		for _, q := range as.rec.Requests {
			text := fmt.Sprintf("%s: %s %s", as.name, q.Method, withQuery(q.Path, url.Values(q.Query).Encode()))
			if len(q.Form) > 0 {
				text += " form " + redactValues(q.Form)
			}
			text += authorizationNote(q.Header.Get(mcp.HeaderAuthorization))
			text += fmt.Sprintf(" → %d", q.Status)
			lines = append(lines, line{q.Time, text})
		}
	}
	slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(a.at.UnixNano(), b.at.UnixNano()) })
	out := make([]transcript.Entry, 0, len(lines))
	seen := map[string]string{}
	for _, l := range lines {
		out = append(out, transcript.Entry{Dir: transcript.Note, Line: stableValues(l.text, seen)})
	}
	return out
}

// volatileParam matches the parameters whose values each run draws anew
// (an issued client_id, a state, a PKCE challenge).
var volatileParam = regexp.MustCompile(`\b(client_id|state|code_challenge)=([^&\s]+)`)

// stableValues writes each volatile value as its parameter and the order
// it first appeared in (client_id=<client_id-1>), the same value the same
// way, so that a transcript, and the snapshot made of it, are the same on
// every run while two client IDs stay two.
func stableValues(text string, seen map[string]string) string {
	return volatileParam.ReplaceAllStringFunc(text, func(m string) string {
		name, value, _ := strings.Cut(m, "=")
		key := name + "=" + value
		if _, ok := seen[key]; !ok {
			n := 1
			for k := range seen {
				if strings.HasPrefix(k, name+"=") {
					n++
				}
			}
			seen[key] = fmt.Sprintf("%s=<%s-%d>", name, name, n)
		}
		return seen[key]
	})
}

// withQuery is path with its query, the values of secret parameters
// redacted.
func withQuery(path, rawQuery string) string {
	if rawQuery == "" {
		return path
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return path + "?" + transcript.Redacted
	}
	return path + "?" + redactValues(q)
}

// redactValues encodes v with the values of secretParams redacted.
func redactValues(v url.Values) string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		for _, val := range v[k] {
			if slices.Contains(secretParams, k) {
				val = transcript.Redacted
			}
			parts = append(parts, k+"="+val)
		}
	}
	return strings.Join(parts, "&")
}

// authorizationNote says which scheme an Authorization value used, never
// its credentials (nor the header's name with a colon, which the redaction
// of a report takes for the header and masks to the end of the line).
func authorizationNote(v string) string {
	if v == "" {
		return ""
	}
	scheme, _, _ := strings.Cut(v, " ")
	return " with " + scheme + " " + transcript.Redacted
}
