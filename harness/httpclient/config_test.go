package httpclient

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

func TestDefaultClientConfigHasTheSeedDefaults(t *testing.T) {
	c := DefaultConfig("http://127.0.0.1:1/mcp")
	if c.URL != "http://127.0.0.1:1/mcp" || c.MaxConcurrentRequests != 16 || c.ControlRequestTimeout != 5*time.Second ||
		c.SessionRecoveryTimeout != 5*time.Second || !c.AllowStateless || c.MaxSSEEventSize != 16<<20 ||
		!c.ReinitOnExpiredSession || !c.OpenGETStream || c.Retry != (RetryPolicy{MaxAttempts: 3, Delay: time.Second}) ||
		c.HTTPClient != nil || c.AuthHeader != "" || c.CustomHeaders != nil {
		t.Fatalf("DefaultConfig = %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestClientConfigValidate: problems are refused before any request, each
// naming the field or header and the way out, never quoting a header value
// or the token (RM-11, RM-12).
func TestClientConfigValidate(t *testing.T) {
	ok := func(*Config) {}
	headers := func(h map[string]string) func(*Config) {
		return func(c *Config) { c.CustomHeaders = h }
	}
	tests := []struct {
		name  string
		edit  func(*Config)
		wants []string // substrings of the error; none: valid
	}{
		{"valid", ok, nil},
		{"zero values are literal", func(c *Config) {
			c.MaxConcurrentRequests, c.ControlRequestTimeout, c.SessionRecoveryTimeout, c.Retry = 0, 0, 0, RetryPolicy{}
		}, nil},
		{"https", func(c *Config) { c.URL = "https://example.com/mcp" }, nil},
		{"custom header", headers(map[string]string{"X-Trace": "1", "Authorization": "Basic hunter2"}), nil},
		{"empty URL", func(c *Config) { c.URL = "" }, []string{`URL ""`, "absolute http or https"}},
		{"relative URL", func(c *Config) { c.URL = "/mcp" }, []string{`URL "/mcp"`}},
		{"other scheme", func(c *Config) { c.URL = "ftp://h/mcp" }, []string{"http or https"}},
		{"negative limit", func(c *Config) { c.MaxConcurrentRequests = -1 }, []string{"MaxConcurrentRequests is negative (-1)", "0 runs one POST at a time"}},
		{"negative timeouts", func(c *Config) { c.ControlRequestTimeout, c.SessionRecoveryTimeout = -1, -1 }, []string{"ControlRequestTimeout is negative", "SessionRecoveryTimeout is negative"}},
		{"negative retry", func(c *Config) { c.Retry = RetryPolicy{MaxAttempts: -1, Delay: -1} }, []string{"Retry.MaxAttempts is negative", "Retry.Delay is negative"}},
		{"no event fits", func(c *Config) { c.MaxSSEEventSize = 0 }, []string{"MaxSSEEventSize is 0", "positive"}},
		{"token with scheme", func(c *Config) { c.AuthHeader = "Bearer hunter2" }, []string{"AuthHeader", "bare token"}},
		{"token with CRLF", func(c *Config) { c.AuthHeader = "hunter2\r\nX: y" }, []string{"AuthHeader contains CR, LF or NUL"}},
		{"Accept", headers(map[string]string{"Accept": "text/plain"}), []string{`CustomHeaders["Accept"]`, "the transport owns", "drop it"}},
		{"Content-Type", headers(map[string]string{"content-type": "text/plain"}), []string{`CustomHeaders["content-type"]`, "owns"}},
		{"session id", headers(map[string]string{"Mcp-Session-Id": "hunter2"}), []string{`CustomHeaders["Mcp-Session-Id"]`, "owns"}},
		{"protocol version", headers(map[string]string{"MCP-Protocol-Version": "2025-11-25"}), []string{`CustomHeaders["MCP-Protocol-Version"]`}},
		{"last event id", headers(map[string]string{"Last-Event-ID": "7"}), []string{`CustomHeaders["Last-Event-ID"]`}},
		{"Authorization with AuthHeader", func(c *Config) {
			c.AuthHeader, c.CustomHeaders = "tok", map[string]string{"authorization": "Basic hunter2"}
		}, []string{`CustomHeaders["authorization"]`, "conflicts with AuthHeader", "drop one"}},
		{"Host", headers(map[string]string{"Host": "evil"}), []string{`CustomHeaders["Host"]`, "HTTP stack"}},
		{"bad name", headers(map[string]string{"X Bad": "1"}), []string{`CustomHeaders["X Bad"]`, "not a valid header name"}},
		{"CRLF in value", headers(map[string]string{"X-Trace": "hunter2\r\nInjected: 1"}), []string{`CustomHeaders["X-Trace"]`, "CR, LF", "remove them"}},
		{"same header twice", headers(map[string]string{"X-Trace": "1", "x-trace": "2"}), []string{"name the same header", "keep one"}},
		{"every problem at once", func(c *Config) { c.URL = ""; c.MaxSSEEventSize = -1 }, []string{"URL", "MaxSSEEventSize"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig("http://127.0.0.1:8080/mcp")
			tt.edit(&c)
			err := c.Validate()
			if len(tt.wants) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			for _, w := range tt.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Validate() = %q, want it to mention %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Validate() = %q quotes a secret", err)
			}
			if _, derr := Dial(c); derr == nil {
				t.Error("Dial accepted the config Validate refuses")
			}
		})
	}
}

// TestValidateUnderCustomOverridesReserved: the mutant accepts reserved
// custom headers (TestCustomHeadersNeverReplaceTheTransports shows it then
// sends them).
func TestValidateUnderCustomOverridesReserved(t *testing.T) {
	c := DefaultConfig("http://127.0.0.1:8080/mcp")
	c.CustomHeaders = map[string]string{"Accept": "text/plain", "Mcp-Session-Id": "forged"}
	c.Mutant = mutant.CustomOverridesReserved
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate() = %v; the mutant accepts reserved headers", err)
	}
}

// httpClientMutants are the mutants of the streamable HTTP client, each
// shown to change the behaviour by a test of this package.
var httpClientMutants = []mutant.Name{
	mutant.NoConcurrencyLimit, mutant.ConcurrencyZeroUnlimited, mutant.SSEHoldsSlot, // TestConcurrencyLimit, TestSSEResponseReleasesTheSlot
	mutant.ControlWaitsBehindPOSTs, mutant.NoControlTimeout, // TestControlBypassesOrdinaryPOSTs, TestControlTimeoutRunsFromItsStart
	mutant.RecoveryPerRequest, mutant.ReinitKeepsSessionID, mutant.NoReinit, mutant.RetryNewIDs, // TestOneRecoveryForConcurrentExpiries
	mutant.RetryControl, mutant.RetryTwice, mutant.NoRecoveryWait, // TestControlDuringRecovery, TestRetryThatMeets404AgainFails, TestOlderPOSTsAndTheRecoveryWait
	mutant.NoSSELimit, mutant.SSELimitOffByOne, mutant.SSESplitCRLFTwice, // TestSSESizeBoundary
	mutant.ReconnectAfterOversize, mutant.StatelessIgnored, // TestOversizeEventFailsTheCallAndIsNotResumed, TestStatelessServer
	mutant.NoAuthOnGetDelete, mutant.AcceptJSONOnly, mutant.GETAcceptJSON, mutant.NoProtocolVersionHeader, mutant.SessionIDOnlyOnPOST, // TestHeadersOnEveryRequest
	mutant.CustomOverridesReserved, mutant.HeadersCrossOrigin, mutant.NoDeleteOnClose, // TestCustomHeadersNeverReplaceTheTransports, TestRedirects, TestCloseEndsTheSessionWithOneDELETE
	mutant.IgnoreRetryField, mutant.NoLastEventID, mutant.BatchPOSTs, // TestResumeAfterADrop, TestOneMessagePerPOST
	mutant.ModernHeaderMismatch, mutant.ModernParamHeaderRaw, mutant.InvalidHeaderToolKept, // TestModernHeadersMirrorTheBody
	mutant.ReplyBatchMixed,                                                                      // TestBatchMutantBodies
	mutant.ModernStreamResumed, mutant.HeaderNameCaseSensitive, mutant.ParamMismatchNotRelisted, // TestModernBrokenStreamIsNotResumed, TestHeaderNamesInAnyCase, TestParamHeaderMismatchRelists
}

// TestEveryHTTPClientMutantIsCovered: every client mutant that breaks an
// RM or HT rule is in httpClientMutants, so a new one cannot go untested.
func TestEveryHTTPClientMutantIsCovered(t *testing.T) {
	covered := map[mutant.Name]bool{}
	for _, m := range httpClientMutants {
		covered[m] = true
	}
	for _, m := range mutant.ForRole("client") {
		if (strings.Contains(m.Description, "(RM-") || strings.Contains(m.Description, "(HT-")) && !covered[m.Name] {
			t.Errorf("client mutant %s (%s) has no test in harness/httpclient", m.Name, m.Description)
		}
	}
}
