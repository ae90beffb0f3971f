package client_test

import (
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/selfexec"
	_ "github.com/mcpconform/mcpconform/suites/client"
	"github.com/mcpconform/mcpconform/suites/run"
)

// TestMain lets this test binary serve as the fake servers and the
// reference adapter the checks spawn.
func TestMain(m *testing.M) {
	selfexec.Dispatch()
	os.Exit(m.Run())
}

// TestReferenceClient runs every client check of either transport against
// the reference client: each must pass, but for those of an era the
// reference does not claim, N/A.
func TestReferenceClient(t *testing.T) {
	run.Configure(run.Options{Seed: 20261203})
	gomega.RegisterFailHandler(ginkgo.Fail)
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	suiteConfig.LabelFilter = "role:client && transport:any"
	ginkgo.RunSpecs(t, "client checks of either transport against the reference", suiteConfig, reporterConfig)
	ran := 0
	for _, r := range run.Results(check.Client) {
		if r.Transport != check.Any {
			continue
		}
		ran++
		if r.Outcome != check.Pass && !run.UnclaimedByReference(r) {
			t.Errorf("%s: %s\n%s", r.ID, r.Outcome, r.Message)
		}
	}
	if ran == 0 {
		t.Error("no client check of either transport ran")
	}
}
