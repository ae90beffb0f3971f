package mutant

// Mutants of the reference server's prompts and completions (the
// server.prompts.* and server.completion.* checks).
const (
	PromptImageNotBase64        Name = "prompt-image-not-base64"
	PromptMissingArgumentServed Name = "prompt-missing-argument-served"
	CompletionValuesUnbounded   Name = "completion-values-unbounded"
)

func init() {
	registerProtocol(
		Mutant{PromptImageNotBase64, "server", "answers prompts/get of its image prompt with image data that is not base64 (TL-14)"},
		Mutant{PromptMissingArgumentServed, "server", "serves prompts/get of a prompt without its required arguments instead of -32602 (PM-04)"},
		Mutant{CompletionValuesUnbounded, "server", "answers completion/complete with more than 100 values (CP-03)"},
	)
}
