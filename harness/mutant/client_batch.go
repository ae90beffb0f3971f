package mutant

// Mutants of how the reference client meets JSON-RPC batches in 2025-03-26
// (its stdio and HTTP transports): a batch it receives, its initialize,
// and the bodies of its POSTs.
const (
	BatchDropped      Name = "batch-dropped"
	InitializeBatched Name = "initialize-batched"
	ReplyBatchMixed   Name = "reply-batch-mixed"
)

var clientBatch = []Mutant{
	{BatchDropped, "client", "drops every message of a JSON-RPC batch it receives (a stdio line, an SSE event), answering none of its requests (JR-35)"},
	{InitializeBatched, "client", "sends its initialize inside a batch of one (JR-36)"},
	{ReplyBatchMixed, "client", "over HTTP posts each reply to a server request in one batch with a notification, mixing a response with a notification (HT-12)"},
}

func init() { register(clientBatch...) }
