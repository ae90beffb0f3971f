package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/usage"
)

// AuthTokenCommand is the subcommand that prints a token of the loopback
// authorization server of `mcpconform serve --auth`.
const AuthTokenCommand = "auth-token"

func init() { selfexec.Register(AuthTokenCommand, AuthTokenMain) }

var authTokenHelp = usage.Help{
	Command:  "mcpconform auth-token",
	Synopsis: []string{"--as URL [--resource R] [--scope S] [--expired]"},
	About: `
Prints a bearer token of the loopback authorization server that
mcpconform serve --auth starts (its URL is in serve's first line), for
mcpconform server --auth-token-command. It reaches that server only: --as
must be a loopback URL.

Run as a token command, it takes the resource, the scope and whether the
token is to have expired from MCPCONFORM_AUTH_RESOURCE, MCPCONFORM_AUTH_SCOPE
and MCPCONFORM_AUTH_EXPIRED (the flags override them).`,
	Examples: []string{
		`mcpconform server --url URL --auth-token-command "mcpconform auth-token --as AS_URL"`,
	},
}

// AuthTokenMain runs `mcpconform auth-token`: 0 with the token printed, 1
// when the authorization server refused or could not be reached, 2 for a
// usage error.
func AuthTokenMain(args []string) int {
	return authToken(args, os.Stdout, os.Stderr)
}

func authToken(args []string, stdout, stderr io.Writer) int {
	fs := usage.NewFlagSet(AuthTokenCommand)
	as := fs.String("as", "", "the `URL` of the loopback authorization server (serve --auth prints it)")
	resource := fs.String("resource", os.Getenv(target.EnvAuthResource), "the resource (audience) of the token; default $"+target.EnvAuthResource)
	scope := fs.String("scope", os.Getenv(target.EnvAuthScope), "space-separated scopes; default $"+target.EnvAuthScope)
	expired := fs.Bool("expired", os.Getenv(target.EnvAuthExpired) == "1", "print a token that has expired; default $"+target.EnvAuthExpired+" = 1")
	err := authTokenHelp.Parse(fs, args, stdout)
	if err == nil {
		err = loopbackURL(*as)
	}
	if code, done := usage.Exit(err, stderr, AuthTokenCommand); done {
		return code
	}
	ttl := authfake.DefaultTokenTTL
	if *expired {
		ttl = -time.Minute
	}
	token, err := issue(*as, *resource, *scope, ttl)
	if err != nil {
		fmt.Fprintln(stderr, "auth-token:", err)
		return 1
	}
	fmt.Fprintln(stdout, token)
	return 0
}

// loopbackURL refuses an --as that is not an http URL of a loopback host.
func loopbackURL(raw string) error {
	u, err := url.Parse(raw)
	if raw == "" || err != nil || u.Scheme != "http" {
		return fmt.Errorf("--as %q: give the http://127.0.0.1:PORT URL of the authorization server that serve --auth printed", raw)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--as %q is not a loopback address; auth-token reaches the loopback authorization server of serve --auth only", raw)
	}
	return nil
}

// issueTimeout bounds the request to the authorization server.
const issueTimeout = 10 * time.Second

// issue asks the authorization server at as for a token.
func issue(as, resource, scope string, ttl time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), issueTimeout)
	defer cancel()
	form := url.Values{"resource": {resource}, "scope": {scope}, "ttl": {ttl.String()}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(as, "/")+authfake.PathIssue, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("the authorization server at %s: %w; is mcpconform serve --auth still running?", as, err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body); err != nil || resp.StatusCode != http.StatusOK || body.AccessToken == "" {
		return "", fmt.Errorf("the authorization server at %s answered %d %s; is it the one serve --auth printed?", as, resp.StatusCode, body.Error)
	}
	return body.AccessToken, nil
}
