package main

import (
	"context"
	"net/http"
	"os"
	"testing"

	"github.com/mcpconform/mcpconform/mcpconformtest"
)

// stdioArg makes the test binary the peer's stdio server: mcpconform
// starts it so for each stdio check.
const stdioArg = "stdio-server"

func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == stdioArg {
		os.Args = []string{os.Args[0], "--transport", "stdio"}
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestConformance certifies the peer against its baseline, as certify.sh
// does with the CLI: over streamable HTTP (its handler, served by this
// process) and over stdio (this test binary as the server), in one run.
func TestConformance(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	handler, shutdown := peer().HTTP(&http.Server{})
	if shutdown != nil {
		t.Cleanup(func() { _ = shutdown(context.Background()) })
	}
	mcpconformtest.Server(t, mcpconformtest.Handler(handler).With(mcpconformtest.Command(exe, stdioArg)),
		mcpconformtest.Baseline("baseline.yaml"))
}
