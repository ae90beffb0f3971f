package mcpconformtest_test

import (
	"fmt"

	"github.com/mcpconform/mcpconform/harness/serve"
	"github.com/mcpconform/mcpconform/mcpconformtest"
	"github.com/mcpconform/mcpconform/suites/run"
)

// A test certifies its server's http.Handler with its own *testing.T:
//
//	func TestConformance(t *testing.T) {
//		mcpconformtest.Server(t, mcpconformtest.Handler(handler))
//	}
//
// Here a Recorder stands for the test, and the handler is mcpconform's
// reference server.
func ExampleServer() {
	handler, err := serve.Handler(run.ReferenceServer(""))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer handler.Close()
	r := mcpconformtest.Record("TestConformance", func(r *mcpconformtest.Recorder) {
		mcpconformtest.Server(r, mcpconformtest.Handler(handler),
			mcpconformtest.Only("server.ping.after-initialize", "server.tools.unknown-tool"))
	})
	for _, s := range r.Subtests() {
		fmt.Println(s.Status(), s.Name())
	}
	// Output:
	// PASS TestConformance/server.ping.after-initialize
	// PASS TestConformance/server.tools.unknown-tool
}

// A stdio server is the command each check starts; here the reference's.
func ExampleCommand() {
	r := mcpconformtest.Record("TestStdio", func(r *mcpconformtest.Recorder) {
		mcpconformtest.Server(r, mcpconformtest.Command(run.ReferenceServerCommand("")...),
			mcpconformtest.Only("server.ping.after-initialize", "http.server.session.delete-then-404"))
	})
	for _, s := range r.Subtests() {
		fmt.Println(s.Status(), s.Name())
	}
	// Output:
	// SKIP TestStdio/http.server.session.delete-then-404
	// PASS TestStdio/server.ping.after-initialize
}

// A client is certified through its adapter program; here the reference
// client's.
func ExampleClient() {
	r := mcpconformtest.Record("TestClient", func(r *mcpconformtest.Recorder) {
		mcpconformtest.Client(r, run.ReferenceAdapter(""),
			mcpconformtest.Only("stdio.client.banner.before-initialize"))
	})
	for _, s := range r.Subtests() {
		fmt.Println(s.Status(), s.Name())
	}
	fmt.Println("failed:", r.Failed())
	// Output:
	// PASS TestClient/stdio.client.banner.before-initialize
	// failed: false
}
