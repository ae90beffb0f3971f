package http_test

import (
	"os"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
	_ "github.com/mcpconform/mcpconform/suites/http"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestMain lets this test binary serve as the reference adapter the client
// checks spawn.
func TestMain(m *testing.M) {
	selfexec.Dispatch()
	os.Exit(m.Run())
}

// TestReferenceImplementations runs every HTTP check against the reference
// client (through its adapter, against the HTTP fakes) and the reference
// server transport: each must pass.
func TestReferenceImplementations(t *testing.T) {
	url, stop, err := serve.Start(run.ReferenceServer(""))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	run.Configure(run.Options{Seed: 20261130, ServerURL: url, Fuzz: true, FuzzCases: 5})
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = "transport:http"
	ginkgo.RunSpecs(t, "HTTP checks against the references", suiteConfig, reporterConfig)
	count := map[check.Role]int{}
	for _, r := range run.Results(check.Client, check.Server) {
		if r.Transport != check.HTTP {
			continue
		}
		count[r.Role]++
		// The reference client opens in the legacy era, so the fallback
		// from a refused server/discover probe is N/A to it; the
		// self-test passes that check on variant discover-fallback.
		// The reference server here is open, so every auth check is N/A
		// to it (and must be: never FAIL for an open server); the
		// protected reference (serve --auth) passes them in
		// cmd/mcpconform's TestAuthCertificationMasksTokens.
		if strings.HasPrefix(r.ID, "http.server.auth.") {
			if r.Outcome != check.NotApplicable {
				t.Errorf("%s against the open reference: %s, want N/A\n%s", r.ID, r.Outcome, r.Message)
			}
			continue
		}
		if r.Outcome != check.Pass && (r.Outcome != check.NotApplicable || r.Message != run.NoDiscoverProbe) && !run.UnclaimedByReference(r) {
			t.Errorf("%s: %s\n%s", r.ID, r.Outcome, r.Message)
		}
	}
	if count[check.Client] < 25 || count[check.Server] < 15 {
		t.Errorf("%d HTTP client and %d HTTP server checks ran; the issue asks for at least 25 and 15", count[check.Client], count[check.Server])
	}
}
