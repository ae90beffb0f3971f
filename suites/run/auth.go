package run

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/harness/transcript"
)

// NoTokenCommand is why a check that needs a token is UNIMPLEMENTED
// without one.
const NoTokenCommand = "the check needs bearer tokens for the server: give --auth-token-command CMD, a shell command that prints a token " +
	"for the audience in $" + target.EnvAuthResource + " with the scopes in $" + target.EnvAuthScope +
	" (expired when $" + target.EnvAuthExpired + " is 1); against mcpconform serve --auth, its auth_token_command"

// Token runs the run's token command for req and returns the token, which
// is masked from then on in everything the check records (C.Secret). A
// run without a command ends the check UNIMPLEMENTED (NoTokenCommand);
// so does a command that gives no token (ask says what the token is for).
// A command that cannot run, or runs past the patience, is ERROR.
func (c *C) Token(req target.TokenRequest, ask string) string {
	if c.cfg.AuthTokenCommand == "" {
		c.Unimplemented(NoTokenCommand)
	}
	token, stderr, err := target.RunTokenCommand(c.Ctx, c.cfg.AuthTokenCommand, req, c.cfg.Patience)
	if token != "" {
		c.Secret(token)
	}
	switch {
	case err == nil:
		return token
	case errors.Is(err, target.ErrNoToken):
		c.Unimplemented(fmt.Sprintf("the token command gave no %s: %v%s; make it print one when $%s=%q, $%s=%q and $%s=%s",
			ask, err, stderrTail(c, stderr), target.EnvAuthResource, req.Resource, target.EnvAuthScope, req.Scope, target.EnvAuthExpired, expiredValue(req.Expired)))
	}
	c.harnessError(fmt.Errorf("--auth-token-command: %v%s", err, stderrTail(c, stderr)))
	return ""
}

// stderrTail is what a token command wrote to stderr, masked and clipped,
// for a message.
func stderrTail(c *C, stderr string) string {
	s := strings.TrimSpace(c.secrets.Redact(stderr))
	if s == "" {
		return ""
	}
	return "; it wrote: " + transcript.Clip(s, transcript.ExcerptBytes)
}

func expiredValue(expired bool) string {
	if expired {
		return "1"
	}
	return "0"
}

// Protected says whether the run was told the server is a protected
// resource (Options.Protected).
func (c *C) Protected() bool { return c.cfg.Protected }
