package mutant

// Mutants that make the reference send a message its protocol version's
// JSON Schema forbids (the *.wire.schema-valid checks).
const (
	ToolWithoutInputSchema        Name = "tool-without-input-schema"
	InitializeWithoutCapabilities Name = "initialize-without-capabilities"
)

// wireProtocol mutate the reference MCP server; they count as
// OfServerProtocol.
var wireProtocol = []Mutant{
	{ToolWithoutInputSchema, "server", "lists its first tool without inputSchema, which every version's Tool requires (JR-01, TL-03)"},
}

// wireClient mutate the reference client session, either transport.
var wireClient = []Mutant{
	{InitializeWithoutCapabilities, "client", "sends initialize without capabilities, which InitializeRequest requires (JR-01, LC-03)"},
}

func init() {
	registerProtocol(wireProtocol...)
	register(wireClient...)
}
