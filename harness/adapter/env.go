package adapter

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/mcpconform/mcpconform/harness/httpclient"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/oauth"
	"github.com/mcpconform/mcpconform/harness/stdio"
	"github.com/mcpconform/mcpconform/harness/target"
)

// readEnvironment reads the contract's variables.
func readEnvironment() (target.Invocation, error) {
	inv := target.Invocation{Case: os.Getenv(target.EnvCase), Transport: os.Getenv(target.EnvTransport)}
	if inv.Transport == "" {
		return inv, fmt.Errorf("%s is not set; mcpconform client sets it for every check", target.EnvTransport)
	}
	if inv.Transport == "stdio" {
		raw := os.Getenv(target.EnvServerCommand)
		if err := json.Unmarshal([]byte(raw), &inv.ServerCommand); err != nil || len(inv.ServerCommand) == 0 {
			return inv, fmt.Errorf("%s must be a non-empty JSON array of strings, got %q", target.EnvServerCommand, raw)
		}
	}
	inv.ServerURL = os.Getenv(target.EnvServerURL)
	if inv.Transport == "http" && inv.ServerURL == "" {
		return inv, fmt.Errorf("%s is not set; mcpconform client sets it for every HTTP check", target.EnvServerURL)
	}
	inv.AuthToken = os.Getenv(target.EnvAuthToken)
	if raw := os.Getenv(target.EnvHeaders); raw != "" {
		if err := json.Unmarshal([]byte(raw), &inv.Headers); err != nil {
			return inv, fmt.Errorf("%s must be a JSON object of strings, got %q: %v", target.EnvHeaders, raw, err)
		}
	}
	if raw := os.Getenv(target.EnvCallTimeoutMS); raw != "" {
		ms, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || ms <= 0 {
			return inv, fmt.Errorf("%s must be a positive number of milliseconds, got %q", target.EnvCallTimeoutMS, raw)
		}
		inv.CallTimeout = time.Duration(ms) * time.Millisecond
	}
	inv.Parallel = os.Getenv(target.EnvParallel) == "1"
	inv.Era = os.Getenv(target.EnvEra)
	if inv.Era != "" && inv.Era != target.EraLegacy && inv.Era != target.EraModern {
		return inv, fmt.Errorf("%s must be %q, %q or unset (the client probes and falls back), got %q", target.EnvEra, target.EraLegacy, target.EraModern, inv.Era)
	}
	inv.Fixtures = os.Getenv(target.EnvFixtures)
	answers, err := target.ReadAnswers(os.Getenv)
	if err != nil {
		return inv, err
	}
	inv.Answers = answers
	if raw := os.Getenv(target.EnvLimits); raw != "" {
		if err := json.Unmarshal([]byte(raw), &inv.Limits); err != nil {
			return inv, fmt.Errorf("%s must be a JSON object, got %q: %v", target.EnvLimits, raw, err)
		}
	}
	return inv, nil
}

// applyLimits honours the limit overrides the harness asks for.
func applyLimits(c *stdio.Config, h *httpclient.Config, limits map[string]any) error {
	for k, v := range limits {
		f, ok := v.(float64)
		if !ok || f < 0 || f != float64(int64(f)) {
			return fmt.Errorf("%s: %s must be a non-negative integer, got %v", target.EnvLimits, k, v)
		}
		n := int64(f)
		switch k {
		case target.LimitStdoutTextLines:
			c.MaxStdoutTextLines = int(n)
		case target.LimitStdoutTextBytes:
			c.MaxStdoutTextBytes = n
		case target.LimitStderrBytes:
			c.MaxStderrBytes = int(n)
		case target.LimitCancelGraceMS:
			c.CancelGrace = time.Duration(n) * time.Millisecond
		case target.LimitShutdownGraceMS:
			c.ShutdownGrace = time.Duration(n) * time.Millisecond
		case target.LimitStartupMS:
			c.StartupTimeout = time.Duration(n) * time.Millisecond
		case target.LimitMaxConcurrent:
			h.MaxConcurrentRequests = int(n)
		case target.LimitMaxSSEEventSize:
			h.MaxSSEEventSize = int(n)
		case target.LimitSessionRecoveryMS:
			h.SessionRecoveryTimeout = time.Duration(n) * time.Millisecond
		case target.LimitControlRequestMS:
			h.ControlRequestTimeout = time.Duration(n) * time.Millisecond
		case target.LimitAllowStateless:
			h.AllowStateless = n != 0
		case target.LimitReinitOnExpired:
			h.ReinitOnExpiredSession = n != 0
		}
	}
	return nil
}

// newAuthorizer is the OAuth 2.1 authorizer of the reference client for the
// MCP endpoint serverURL: it takes pre-registered credentials from
// MCPCONFORM_OAUTH_CLIENT (a JSON object with client_id and client_secret)
// and the URL of a client ID metadata document from
// MCPCONFORM_OAUTH_CLIENT_METADATA_URL, both optional, and reports its
// steps, redacted, on log.
func newAuthorizer(serverURL string, m mutant.Name, log io.Writer) (*oauth.Authorizer, error) {
	cfg := oauth.Config{ServerURL: serverURL, Mutant: m, ClientMetadataURL: os.Getenv(oauth.EnvClientMetadataURL),
		Log: func(line string) { fmt.Fprintln(log, "adapter:", line) }}
	if raw := os.Getenv(oauth.EnvClient); raw != "" {
		var c struct {
			ID     string `json:"client_id"`
			Secret string `json:"client_secret"`
		}
		if err := json.Unmarshal([]byte(raw), &c); err != nil || c.ID == "" {
			// The value holds a secret: it is not quoted.
			return nil, fmt.Errorf("%s must be a JSON object with a client_id (and client_secret for a confidential client); it does not parse as one", oauth.EnvClient)
		}
		cfg.ClientID, cfg.ClientSecret = c.ID, c.Secret
	}
	return oauth.New(cfg)
}
