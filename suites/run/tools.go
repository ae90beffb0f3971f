package run

import (
	"slices"

	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
)

// ListedTool is a tools/list entry as a check reads it: the tool (its
// name and annotations) and the arguments its inputSchema requires.
type ListedTool struct {
	mcp.Tool
	InputSchema struct {
		Required []string `json:"required"`
	} `json:"inputSchema"`
}

// toolUse is what this process's checks called and left alone.
var toolUse toolpolicy.Recorder

// ToolPolicy is the run's policy of which tools checks may call: CallTools,
// the tools Fixtures name, never Unsafe.
func (c Options) ToolPolicy() toolpolicy.Policy {
	p := toolpolicy.Policy{Mode: c.CallTools, Unsafe: c.Unsafe}
	for _, f := range c.Fixtures {
		if !slices.Contains(p.Named, f.Tool) {
			p.Named = append(p.Named, f.Tool)
		}
	}
	return p
}

// MayCall says whether the check may call t under the run's ToolPolicy and,
// when not, why; the reports list a tool it may not call as left alone.
func (c *C) MayCall(t mcp.Tool) (bool, string) {
	ok, why := c.cfg.ToolPolicy().Allows(t)
	if !ok {
		toolUse.LeftAlone(t.Name, why)
	}
	return ok, why
}

// Calls records that the check calls the tool name: the reports list it.
func (c *C) Calls(name string) { toolUse.Called(name) }

// CensusCalls records that the run's tool census calls the tool name:
// the reports list it, as a check's call.
func CensusCalls(name string) { toolUse.Called(name) }

// ToolUse is what the run's checks called and left alone: in the
// coordinator of a parallel run, its workers' (AdoptToolUse).
// The roles its discovery pass found a tool for are the coordinator's.
func ToolUse() toolpolicy.Use {
	u := toolUse.Use()
	u.FixturesFound = FixturesFound()
	return u
}

// AdoptToolUse records what another process's checks called and left
// alone (a worker's of a parallel run).
func AdoptToolUse(u toolpolicy.Use) { toolUse.Add(u) }
