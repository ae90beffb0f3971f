package mutant

import "sort"

// Permitted variants of the reference implementations: behaviour the MCP
// specification permits but the hardened profile (the seed behaviours NG-,
// RM-, CX-, and the defences a check names hardened) does not, or does not
// ask for. They run like mutants (the same
// --mutant flag, the same Name consulted at the same places), but the
// self-test proves the opposite of them: under --profile spec no check
// fails a variant (precision), while under --profile hardened every check
// naming it in its KilledBy kills it.

// Variants of the reference client (mcpconform adapter --mutant NAME).
const (
	StderrInherited    Name = "stderr-inherited"
	NoCancelTeardown   Name = "no-cancel-teardown"
	NoConcurrencyCap   Name = "no-concurrency-cap"
	NoSSECap           Name = "no-sse-cap"
	StatelessRefused   Name = "stateless-refused"
	NoDeleteOnClose    Name = "no-delete-on-close"
	NoRetryAfterReinit Name = "no-retry-after-reinit"
	NoGETStream        Name = "no-get-stream"
	DiscoverFallback   Name = "discover-fallback"
	NoDrainAfterEnd    Name = "no-drain-after-end"
)

// Variants of the reference server (mcpconform serve --mutant NAME).
const (
	LogsBeforeSetLevel     Name = "logs-before-setlevel"
	JSONResponses          Name = "json-responses"
	DeleteRefused          Name = "delete-refused"
	GETRefused             Name = "get-refused"
	StatelessServer        Name = "stateless-server"
	NoHostCheck            Name = "no-host-check"
	UnknownSessionAccepted Name = "unknown-session-accepted"
	ModernOnly             Name = "modern-only"
)

// Variant describes one permitted variant.
type Variant struct {
	Name Name
	Role string // "client" or "server": which reference it varies
	// Transport is the transport whose behaviour it changes: "stdio",
	// "http", or "any" (a server variant of the MCP server itself).
	Transport string
	// PermittedBy are the rules of the specification's digest that permit
	// the behaviour (spec/mcp-requirements.md).
	PermittedBy []string
	Description string // what it does differently, and why the spec allows it
}

var variants = []Variant{
	{StderrInherited, "client", "stdio", []string{"ST-07"},
		"passes the server's stderr through to its own stderr instead of keeping a bounded tail (ST-07: the client may capture, forward or ignore it)"},
	{NoCancelTeardown, "client", "stdio", []string{"LC-31"},
		"sends notifications/cancelled for a timed-out call and keeps the session; it declares no cancel_grace_ms (LC-31 asks to cancel and stop waiting, not to stop the server)"},
	{NoDrainAfterEnd, "client", "stdio", []string{"LC-20"},
		"stops reading the server's stdout once the session has ended, instead of draining it until the server exits: a server still writing (a banner longer than the pipe) is left blocked, its stdin unread, until the shutdown's SIGTERM (LC-20 ends a server whatever it is doing)"},
	{NoConcurrencyCap, "client", "http", []string{"HT-10"},
		"runs any number of POSTs at once and declares no max_concurrent_requests (the spec sets no bound)"},
	{NoSSECap, "client", "http", []string{"HT-17"},
		"accepts SSE events of any size and declares no max_sse_event_size (the spec sets no bound)"},
	{StatelessRefused, "client", "http", []string{"HT-50"},
		"refuses a server that assigns no session id, declaring allow_stateless 0 (HT-50 leaves session ids to the server)"},
	{NoDeleteOnClose, "client", "http", []string{"HT-58"},
		"closes without DELETE (HT-58 is a SHOULD)"},
	{NoRetryAfterReinit, "client", "http", []string{"HT-57"},
		"after a 404 on its session starts over with a fresh initialize but fails the call instead of retrying it (HT-57 asks for the handshake, not the retry)"},
	{NoGETStream, "client", "http", []string{"HT-30g"},
		"never opens the GET stream for server-initiated messages (HT-30g: the client may)"},
	{DiscoverFallback, "client", "any", []string{"LC-45", "HT-92"},
		"speaks the legacy era only: opens every connection with a 2026-07-28 server/discover probe, then with initialize whatever the answer (LC-45 lets a client probe; the reference goes on in the 2026-07-28 era where the server offers it)"},

	{LogsBeforeSetLevel, "server", "any", []string{"LG-05"},
		"sends log messages of every level until the client sets one with logging/setLevel (LG-05: before setLevel the server chooses)"},
	{JSONResponses, "server", "http", []string{"HT-17"},
		"answers every POSTed request with one application/json body, never SSE (HT-17 permits either)"},
	{DeleteRefused, "server", "http", []string{"HT-58"},
		"answers DELETE with 405: clients cannot end sessions (HT-58 permits it)"},
	{GETRefused, "server", "http", []string{"HT-31g"},
		"answers GET with 405: it offers no server-initiated stream (HT-31g permits it)"},
	{StatelessServer, "server", "http", []string{"HT-50"},
		"serves without sessions: no Mcp-Session-Id on the initialize answer, every request served apart (HT-50: the server may hand out a session id)"},
	{NoHostCheck, "server", "http", []string{"HT-03", "HT-05"},
		"accepts a request whatever host its Host header names; it still refuses a foreign Origin, the DNS-rebinding defence HT-03 asks for, and listens on loopback (HT-05): no rule of the spec asks for a Host check"},
	{UnknownSessionAccepted, "server", "http", []string{"HT-56", "HT-50"},
		"serves a request bearing a session id it never issued, in a session of its own; a session it ended still gets 404, which is all HT-56 asks"},
	{ModernOnly, "server", "any", []string{"LC-48", "LC-49"},
		"serves the 2026-07-28 era only (serve --era modern), refusing initialize with -32022 naming its versions (LC-48 describes such a server; LC-49 lets a server serve both eras, not must)"},
}

// Variants returns every permitted variant, sorted by name.
func Variants() []Variant {
	out := append([]Variant(nil), variants...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// VariantsForRole returns the permitted variants of one reference
// implementation.
func VariantsForRole(role string) []Variant { return ofRole(Variants(), role) }

// LookupVariant returns the variant named n.
func LookupVariant(n Name) (Variant, bool) {
	for _, v := range variants {
		if v.Name == n {
			return v, true
		}
	}
	return Variant{}, false
}

func (v Variant) role() string { return v.Role }
