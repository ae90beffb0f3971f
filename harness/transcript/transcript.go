// Package transcript holds the wire record of one check: what crossed the
// wire in each direction plus the harness's own notes, how that record is
// normalised so that two runs of the same behaviour compare equal (the
// snapshots), and how credentials are kept out of it (Redact).
package transcript

// Directions of an Entry.
const (
	ClientToServer = "c2s"  // a frame the client sent
	ServerToClient = "s2c"  // a frame the server sent
	Note           = "note" // something the harness observed that is not a frame (a header, an exit, EOF)
)

// Entry is one line of a transcript: a frame as it crossed the wire (without
// its line terminator) or a harness note.
type Entry struct {
	Dir  string // ClientToServer, ServerToClient or Note
	Line string
}
