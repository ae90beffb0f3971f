// Command actionwf prints a composite action (action.yml) as a workflow, for
// actionlint to lint: .ci/actionlint runs it. Usage: actionwf ACTION.yml.
package main

import (
	"fmt"
	"os"

	"github.com/mcpconform/mcpconform/internal/workflows"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: actionwf ACTION.yml")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "actionwf:", err)
		os.Exit(2)
	}
	a, err := workflows.ParseAction(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, "actionwf:", os.Args[1]+":", err)
		os.Exit(2)
	}
	out, err := a.AsWorkflow()
	if err != nil {
		fmt.Fprintln(os.Stderr, "actionwf:", os.Args[1]+":", err)
		os.Exit(2)
	}
	os.Stdout.Write(out)
}
