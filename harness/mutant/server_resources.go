package mutant

// Mutants of the reference server's resources: what resources/read answers
// for a listed resource and for a URI it has no resource at.
const (
	ResourceBlobNotBase64   Name = "resource-blob-not-base64"
	UnknownResourceContents Name = "unknown-resource-contents"
	NotFoundLegacyCode      Name = "not-found-legacy-code"
)

func init() {
	registerProtocol(
		Mutant{ResourceBlobNotBase64, "server", "reads its binary resource with a blob that is not base64 (RS-06)"},
		Mutant{UnknownResourceContents, "server", "answers resources/read of a URI it has no resource at with an empty contents list instead of an error (RS-05, RS-10)"},
		Mutant{NotFoundLegacyCode, "server", "answers a 2026-07-28 resources/read of a URI it has no resource at with -32002 instead of -32602 (JR-30, RS-10)"},
	)
}
