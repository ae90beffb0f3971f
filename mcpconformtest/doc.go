// Package mcpconformtest certifies a Model Context Protocol implementation
// from go test: each check of mcpconform is a subtest named by its ID.
//
//	func TestConformance(t *testing.T) {
//		mcpconformtest.Server(t, mcpconformtest.Handler(myHandler),
//			mcpconformtest.Baseline("baseline.yaml"))
//	}
//
// Server certifies a server: an http.Handler (served on 127.0.0.1 for the
// run), a streamable HTTP endpoint at a URL, or a stdio server command.
// Client certifies a client through its adapter program (docs/client.md:
// the adapter contract). The options are the mcpconform command's flags: the
// profile, a baseline of expected failures, a fixtures file, the checks
// to run or skip, the seed, the workers, report paths and the budgets.
//
// A check that FAILs (or is ERROR, or a STALE baseline entry) is t.Error
// with the requirement, what was expected and observed and the transcript's
// tail; WARN, HARDENED and INFO are logged, and fail the test only with
// FailOn; UNIMPLEMENTED, N/A and SKIPPED are t.Skip with their reason.
// go test -run 'TestConformance/server.ping' runs only the checks whose IDs
// match; -short runs the quick subset (the checks that spend no declared
// wait); -timeout bounds the run, whose unfinished checks are then skipped.
//
// The checks run in a child process of the test binary (one run of the
// checks per process): this package dispatches that process, and the
// servers, adapters and fakes it starts, before the test binary's tests
// start, so no TestMain is needed. Every process is reaped when the test
// ends, and the test's process keeps no state of the run.
package mcpconformtest
