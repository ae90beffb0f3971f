package mutant

// Mutants of the reference client's validation of structuredContent
// against a tool's outputSchema (package mcpclient).
const (
	OutputUnvalidated   Name = "output-unvalidated"
	SchemaDraft7Default Name = "schema-draft7-default"
	DialectIgnored      Name = "dialect-ignored"
	RemoteRefFetched    Name = "remote-ref-fetched"
	RemoteRefUnchecked  Name = "remote-ref-unchecked"
)

var clientOutputSchema = []Mutant{
	{OutputUnvalidated, "client", "never validates a tool's structuredContent against its outputSchema (TL-12)"},
	{SchemaDraft7Default, "client", "validates an outputSchema without $schema as draft-07 instead of JSON Schema 2020-12 (JR-55)"},
	{DialectIgnored, "client", "validates an outputSchema whose $schema names a dialect it does not support as 2020-12 instead of failing the call saying so (JR-56)"},
	{RemoteRefFetched, "client", "fetches the http URLs an outputSchema's $refs name before failing the call as the reference does (JR-57)"},
	{RemoteRefUnchecked, "client", "accepts, unvalidated, the structuredContent of a tool whose outputSchema has a $ref it cannot resolve (JR-57)"},
}

func init() { register(clientOutputSchema...) }
