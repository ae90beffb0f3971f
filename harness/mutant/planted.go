package mutant

// Planted bugs of the reference server: mutants that prove the fuzzer
// (mcpconform fuzz), not the suites. No behaviour check has to kill them, so
// ForRole, which the self-test's suite matrix iterates, leaves them out;
// Parse accepts them, and each works with mcpconform serve on either
// transport (they count as OfServerProtocol).
const (
	PlantedCrashOnString           Name = "planted-crash-on-string"
	PlantedDuplicateReply          Name = "planted-duplicate-reply"
	PlantedStdoutLog               Name = "planted-stdout-log"
	PlantedWedgeAfterUnknownCancel Name = "planted-wedge-after-unknown-cancel"
	PlantedLeak                    Name = "planted-leak"
	PlantedSetsidChild             Name = "planted-setsid-child"
	PlantedImageWithoutMimeType    Name = "planted-image-without-mime-type"
	PlantedStructuredDrift         Name = "planted-structured-drift"
	PlantedResponseAfterCancel     Name = "planted-response-after-cancel"
)

var planted = []Mutant{
	{PlantedCrashOnString, "server", "exits at once with status 3, writing nothing, on a tools/call whose arguments hold a string (key or value, at any depth) containing U+0000"},
	{PlantedDuplicateReply, "server", "answers logging/setLevel with level \"emergency\" twice: on stdio two lines in one write, over HTTP twice on its SSE stream (once with --json-response)"},
	{PlantedStdoutLog, "server", "writes the line \"mcpconform: handled request N\" to stdout before the response to the Nth request of the connection, from the 20th on (every request counts, initialize and ping too); no effect over HTTP"},
	{PlantedWedgeAfterUnknownCancel, "server", "after notifications/cancelled names a requestId it never received, answers no request of that session any more (it keeps reading; stdio's own parse and invalid-request errors are still written)"},
	{PlantedLeak, "server", "keeps 8 MiB, every page written, per call of the tool test_simple_text, forever"},
	{PlantedSetsidChild, "server", "starts a child in a session of its own (setsid) on every start, which nothing ends with the server: it outlives the teardown until it exits by itself a minute later; no effect over HTTP"},
	{PlantedImageWithoutMimeType, "server", "answers tools/call of test_image_content with an image block without its mimeType, which the schema of every version requires"},
	{PlantedStructuredDrift, "server", "from the second call of test_structured_content in a session (2025-06-18 on), answers structuredContent whose temperature is the string \"21.5\", where its outputSchema says a number"},
	{PlantedResponseAfterCancel, "server", "once notifications/cancelled stops a request in flight, answers it all the same with error -32800 \"request cancelled\", written just before the next answer of the connection (in the same write); no effect over HTTP"},
}

func init() { registerProtocol(planted...) }

// Planted returns the planted bugs, sorted by name: the fuzzer's kill matrix.
func Planted() []Mutant { return ofPlanted(All(), true) }

// IsPlanted reports whether n is a planted bug.
func IsPlanted(n Name) bool {
	for _, m := range planted {
		if m.Name == n {
			return true
		}
	}
	return false
}

// Planted reports whether m is a planted bug, which the fuzzer kills rather
// than a check.
func (m Mutant) Planted() bool { return IsPlanted(m.Name) }

// ofPlanted keeps the mutants that are (or are not) planted bugs.
func ofPlanted(all []Mutant, want bool) []Mutant {
	var out []Mutant
	for _, m := range all {
		if m.Planted() == want {
			out = append(out, m)
		}
	}
	return out
}
