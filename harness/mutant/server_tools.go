package mutant

// Mutants of the reference server's tools: what tools/list declares and
// what a tools/call result carries.
const (
	ToolImageNotBase64         Name = "tool-image-not-base64"
	ToolInputSchemaInvalid     Name = "tool-input-schema-invalid"
	StructuredContentOffSchema Name = "structured-content-off-schema"
	StructuredContentNoText    Name = "structured-content-no-text"
)

func init() {
	registerProtocol(
		Mutant{ToolImageNotBase64, "server", "answers test_image_content with image data that is not base64 (TL-14)"},
		Mutant{ToolInputSchemaInvalid, "server", "lists the log tool with an inputSchema that is no JSON Schema: a property of type \"strin\" (TL-03)"},
		Mutant{StructuredContentOffSchema, "server", "answers test_structured_content with structuredContent its outputSchema refuses: the temperature a string (TL-12)"},
		Mutant{StructuredContentNoText, "server", "answers test_structured_content without the text block that mirrors its structuredContent (TL-11)"},
	)
}
