package run

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/target"
)

// The run's own token: against a protected server (one that answers 401)
// with --auth-token-command, every HTTP request of the checks that are not
// about authorization carries a token for the server with every scope it
// names, so that they judge the server behind its authorization rather
// than meet the 401. The auth checks make their own requests, each with
// the token it is about.

// runTokens holds the token of each run configuration (command and URL)
// this process obtained: the command runs once per process.
var runTokens = struct {
	sync.Mutex
	of map[string]*runTokenOnce
}{of: map[string]*runTokenOnce{}}

type runTokenOnce struct {
	once  sync.Once
	token string
}

// runToken returns the run's token for the server of cfg, obtaining it the
// first time: "" without a token command, for an open server (no 401),
// or when the command gives none (the checks then meet the 401 and say so).
func runToken(cfg Options) string {
	if cfg.AuthTokenCommand == "" || cfg.ServerURL == "" {
		return ""
	}
	key := cfg.AuthTokenCommand + "\x00" + cfg.ServerURL
	runTokens.Lock()
	t := runTokens.of[key]
	if t == nil {
		t = &runTokenOnce{}
		runTokens.of[key] = t
	}
	runTokens.Unlock()
	t.once.Do(func() { t.token = obtainRunToken(cfg) })
	return t.token
}

// obtainRunToken asks the server without a token; on a 401 it reads the
// challenge and the Protected Resource Metadata for the scopes, and runs
// the token command for the server's URL with all of them.
func obtainRunToken(cfg Options) string {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ProbeTimeout+cfg.Patience)
	defer cancel()
	client := &http.Client{Timeout: cfg.ProbeTimeout}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpconform-token","version":"1"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.ServerURL, bytes.NewReader([]byte(body)))
	if err != nil {
		return ""
	}
	req.Header.Set("Content-Type", mcp.ContentTypeJSON)
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return ""
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return ""
	}
	ch := ParseBearerChallenge(resp.Header.Values(mcp.HeaderWWWAuthenticate))
	scopes := strings.Fields(ch.Params["scope"])
	for _, u := range MetadataURLs(cfg.ServerURL, ch) {
		if doc, _ := FetchMetadata(ctx, client, u); doc != nil {
			for _, s := range doc.ScopesSupported {
				if !slices.Contains(scopes, s) {
					scopes = append(scopes, s)
				}
			}
			break
		}
	}
	token, _, err := target.RunTokenCommand(ctx, cfg.AuthTokenCommand, target.TokenRequest{Resource: cfg.ServerURL, Scope: strings.Join(scopes, " ")}, cfg.Patience)
	if err != nil {
		return ""
	}
	return token
}

// RunTokenTransport returns next (nil: http.DefaultTransport) sending the
// run's token (runToken) as Authorization on every request that carries
// none; next itself when the run has no token.
func RunTokenTransport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	tok := runToken(Current())
	if tok == "" {
		return next
	}
	return bearerTransport{next: next, token: tok}
}

type bearerTransport struct {
	next  http.RoundTripper
	token string
}

func (b bearerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get(mcp.HeaderAuthorization) != "" {
		return b.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.Header.Set(mcp.HeaderAuthorization, "Bearer "+b.token)
	return b.next.RoundTrip(req)
}

// runSecrets are the run's token, masked in every check (C's secrets).
func runSecrets(cfg Options) []string {
	if tok := runToken(cfg); tok != "" {
		return []string{tok}
	}
	return nil
}
