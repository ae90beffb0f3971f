package mutant

// Mutants of the reference client where two eras meet.
const (
	RefusalUnexplained Name = "refusal-unexplained"
)

var clientEras = []Mutant{
	{RefusalUnexplained, "client", "reports a failed initialize without the server's answer, so a modern-only server's refusal naming the versions it serves goes unsaid (LC-43)"},
}

func init() { register(clientEras...) }
