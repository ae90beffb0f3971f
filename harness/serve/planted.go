package serve

import (
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"

	"github.com/mcpconform/mcpconform/harness/selfexec"
)

// PlantedOrphanCommand is the subcommand mutant PlantedSetsidChild runs as
// its child (`mcpconform planted-orphan`): a process that does nothing
// for plantedOrphanLife and exits.
const PlantedOrphanCommand = "planted-orphan"

// plantedOrphanLife bounds the planted child's life, so that one the
// harness cannot see (no /proc) is gone a minute later, as a fake is.
const plantedOrphanLife = time.Minute

func init() { selfexec.Register(PlantedOrphanCommand, PlantedOrphan) }

// PlantedOrphan is the planted child's whole life: it waits, then exits 0.
func PlantedOrphan([]string) int {
	<-time.After(plantedOrphanLife)
	return 0
}

// startOrphan is mutant PlantedSetsidChild: a child in a session of its
// own (setsid), so out of the server's process group, with none of its
// pipes; nothing ends it with the server. It keeps the environment, and
// with it the reaper's mark the harness finds it by.
func startOrphan(stderr io.Writer) {
	argv := selfexec.Command(PlantedOrphanCommand)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "serve: the planted child did not start:", err)
		return
	}
	go func() { _ = cmd.Wait() }() // reaps it should it end while the server runs
}
