package mutant

// ToolNameWithSpace lists a tool whose name holds a space (TL-04).
const ToolNameWithSpace Name = "tool-name-with-space"

func init() {
	registerProtocol(Mutant{ToolNameWithSpace, "server", "lists its first tool under a name with spaces, which tool names may not hold (TL-04)"})
}
