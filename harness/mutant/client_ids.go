package mutant

// InFlightIDReused: the reference client (package mcpclient) gives, in the
// 2026-07-28 era, each tools/call the id of its oldest request still in
// flight, when there is one.
const InFlightIDReused Name = "in-flight-id-reused"

func init() {
	register(Mutant{InFlightIDReused, "client", "in 2026-07-28 gives a tools/call the id of its oldest request still unanswered (JR-06)"})
}
