package certify

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/mcpconform/mcpconform/harness/check"
)

// How many checks a run takes at once, and the memory its processes hold.
// Checks wait on their targets far more than they compute, so a run
// overlaps several per core; but a check that waits for nothing (it is
// judged the moment its answer comes) gains nothing past one per core.
const (
	// serverPerCore and clientPerCore are checks at once per core: server
	// checks mostly wait on the server (quiet windows, tool budgets),
	// client checks also time the client's processes and the fakes.
	serverPerCore = 4
	clientPerCore = 2
	// urlPerCore are the checks at once per core against a server at a
	// URL alone (no stdio server beside it): one process serves them all,
	// the checks start none, and each spends most of its time in a quiet
	// window.
	urlPerCore = 6
	// runMemory bounds the summed resident memory of a run's own
	// processes (the coordinator and its workers, not the targets),
	// whatever --parallel asks and whatever the targets send.
	runMemory = 768 << 20
	// workerMemory is what one process of a run holds at most: about
	// 35 MiB of its own, and what a target sends held to a bound (a 4 MiB
	// stdio line, HTTP body or SSE event, and its decoding). It is each
	// process's soft memory limit too.
	workerMemory = 64 << 20
)

// maxWorkers is the most workers runMemory holds beside their coordinator.
func maxWorkers() int { return runMemory/workerMemory - 1 }

// settleWorkers sets p.workers: --parallel, or without it what this
// machine carries (per core, and no more than the checks that declare
// waits plus one a core), never more than the run's memory bound allows.
// A run of both roles without --parallel takes the server's figure, and
// p.clientCap holds its client checks to the client's: server checks fill
// the rest. It returns a note for the console when it lowered --parallel.
func settleWorkers(o *runOptions, p *prepared, roles []check.Role) string {
	n := o.parallel
	p.clientCap = 0
	if n == 0 {
		cores := runtime.NumCPU()
		perCore := serverPerCore
		switch {
		case slices.Contains(roles, check.Client) && slices.Contains(roles, check.Server):
			p.clientCap = clientPerCore * cores
		case slices.Contains(roles, check.Client):
			perCore = clientPerCore
		case o.url != "" && len(o.target) == 0:
			perCore = urlPerCore
		}
		n = min(perCore*cores, p.waiting+cores)
	}
	p.workers = max(1, min(n, maxWorkers()))
	if o.parallel > p.workers {
		return fmt.Sprintf("--parallel %d is more workers than the run's memory bound holds (%d MiB, %d MiB a process): %d workers",
			o.parallel, runMemory>>20, workerMemory>>20, p.workers)
	}
	return ""
}

// limitMemory makes workerMemory this process's soft memory limit, unless
// the user set one (GOMEMLIMIT): the garbage collector then works harder
// before a hostile target's floods raise its footprint.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(workerMemory)
	}
}
