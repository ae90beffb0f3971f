package server_test

import (
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/suites/run"
	_ "github.com/mcpconform/mcpconform/suites/server"
)

// TestMain lets this test binary serve as the reference stdio server.
func TestMain(m *testing.M) {
	selfexec.Dispatch()
	os.Exit(m.Run())
}

// TestReferenceServer runs every server-behaviour check against the
// reference server over stdio and streamable HTTP: each must pass.
func TestReferenceServer(t *testing.T) {
	url, stop, err := serve.Start(run.ReferenceServer(""))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	run.Configure(run.Options{Seed: 20261130, ServerURL: url, ServerCommand: run.ReferenceServerCommand("")})
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = "role:server && (!transport:http || id:http.server.wire.schema-valid)"
	ginkgo.RunSpecs(t, "server checks against the reference", suiteConfig, reporterConfig)
	for _, r := range run.Results(check.Server) {
		if r.Transport == check.HTTP && r.ID != "http.server.wire.schema-valid" {
			continue
		}
		if r.Outcome == check.NotApplicable && modernOnly[r.ID] {
			continue
		}
		if r.Outcome != check.Pass && r.Outcome != check.Info {
			t.Errorf("%s: %s\n%s", r.ID, r.Outcome, r.Message)
		}
	}
}

// modernOnly are the checks only a server that serves 2026-07-28 alone
// answers; the dual-era reference is N/A for them, and the self-test runs
// them against its permitted variant modern-only.
var modernOnly = map[string]bool{"server.version.initialize-names-versions": true}
