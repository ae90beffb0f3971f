package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Placeholders written by Normalise in place of values that change from run
// to run. Request ids and progress tokens get numbered placeholders instead
// (see Normalise).
const (
	TimePlaceholder    = "<time>"
	VersionPlaceholder = "<version>"
)

var (
	// timestamp is an RFC 3339 / ISO 8601 date and time.
	timestamp = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:?\d{2})?`)
	// sessionHeader is an Mcp-Session-Id header in a note, as text or as a
	// JSON member.
	sessionHeader = regexp.MustCompile(`(?i)\b(mcp-session-id"?\s*[:=]\s*"?)([^\s",;\\]+)`)
	// loopbackPort is the port of a loopback or test host, which a server
	// under test gets afresh on every run.
	loopbackPort = regexp.MustCompile(`((?:127\.0\.0\.1|localhost|\[::1\]|[A-Za-z0-9.-]+\.example):)\d{1,5}\b`)
	// eventID is an SSE event's id in a note (`SSE event (id "7-1", …)`)
	// or a check's message (`event id "7-1"`), or a Last-Event-ID header
	// resuming after one.
	eventID = regexp.MustCompile(`(?i)(\(id "|\bevent id "|last-event-id"?\s*[:=]\s*"?)([^\s",;\\)]+)`)
)

// Normalise renders a transcript for a snapshot: one line per entry, the
// direction first, with everything that legitimately changes between two
// runs of the same behaviour masked, so that a snapshot diff shows only
// behaviour.
//
//   - A frame that is a JSON object or array is rendered canonically: keys
//     sorted, no insignificant space, numbers as written.
//   - Request ids (the "id" of every message, and the requestId of
//     notifications/cancelled) become placeholders numbered in order of first
//     appearance that keep the id's JSON type: "<n1>", "<n2>" for numbers,
//     "<s1>" for strings. Equal ids get equal placeholders, so a response
//     still visibly answers its request. A null id stays null.
//   - The free-text reason of notifications/cancelled becomes "<reason>"
//     (clients often put a measured time in it).
//   - Progress tokens (params._meta.progressToken of a request and
//     params.progressToken of notifications/progress) become "<token-n1>",
//     "<token-s1>", … the same way.
//   - Date-times anywhere in a string, and the value of any "timestamp"
//     member, become "<time>".
//   - The version of clientInfo and serverInfo becomes "<version>".
//   - Mcp-Session-Id values, as a header in a note or as a JSON member,
//     become "<session1>", "<session2>", …
//   - Ports of loopback and .example hosts become "<port>"; a session id
//     seen in a header is masked wherever else it appears (an error
//     message naming it).
//   - SSE event ids in a note, and Last-Event-ID values, become "<event1>",
//     "<event2>", … (a server numbers its streams across all its sessions,
//     so they depend on what else it served).
//   - A frame that is not a JSON object or array is rendered as
//     `c2s text (N bytes): …`: its length and its first ExcerptBytes bytes
//     (Excerpt: control characters escaped), date-times masked.
//   - Notes are kept as text, with date-times and session ids masked.
//   - Authorization header values and URL userinfo are masked as Redact
//     does, in a note before its session ids.
func Normalise(lines []Entry) []string { return NewNormaliser().Lines(lines) }

// Normaliser renders a check's transcript (Lines, as Normalise) and then
// its message (Message) with the same placeholders, so that a message
// naming an SSE event id names it as the transcript shows it.
type Normaliser struct{ n *normaliser }

// NewNormaliser returns a Normaliser that has numbered nothing yet.
func NewNormaliser() *Normaliser {
	return &Normaliser{n: &normaliser{
		ids:      placeholders{prefix: ""},
		tokens:   placeholders{prefix: "token-"},
		sessions: map[string]string{},
		events:   map[string]string{},
	}}
}

// Message masks the SSE event ids a check's message names (`event id
// "7-1"`, `Last-Event-ID: "7-1"`) as the transcript rendered by Lines
// masks them: an id it showed gets its placeholder, another the next
// number.
func (nz *Normaliser) Message(msg string) string { return nz.n.eventIDs(msg) }

// Lines renders a transcript as Normalise does, numbering on from what
// this Normaliser rendered before.
func (nz *Normaliser) Lines(lines []Entry) []string {
	n := nz.n
	out := make([]string, 0, len(lines))
	for _, e := range lines {
		line := loopbackPort.ReplaceAllString(n.render(e), "${1}<port>")
		for _, id := range n.echoed {
			line = strings.ReplaceAll(line, id, n.sessions[id])
		}
		out = append(out, Redact(e.Dir+" "+line))
	}
	return out
}

// minEchoedSession is the shortest session id masked outside its header:
// real ones are long and random, and a short one would mask pieces of
// words.
const minEchoedSession = 16

type normaliser struct {
	ids, tokens      placeholders
	sessions, events map[string]string
	// echoed are the session ids masked wherever they appear, longest
	// first, so that an id that holds another leaves no piece of it and
	// the output does not depend on map order.
	echoed []string
}

func (n *normaliser) render(e Entry) string {
	if e.Dir == Note {
		return n.note(e.Line)
	}
	v, ok := decodeStructured(e.Line)
	if !ok {
		return textFrame(e.Line)
	}
	switch x := v.(type) {
	case map[string]any:
		n.message(x)
	case []any:
		for _, el := range x {
			if m, ok := el.(map[string]any); ok {
				n.message(m)
			}
		}
	}
	return canonical(n.scrub(v))
}

// textFrame renders a frame that is not JSON: its length and an excerpt,
// date-times masked.
func textFrame(line string) string {
	if line == "" {
		return "text (0 bytes)"
	}
	return fmt.Sprintf("text (%d bytes): %s", len(line), timestamp.ReplaceAllString(Excerpt(line), TimePlaceholder))
}

// decodeStructured decodes a line that holds exactly one JSON object or
// array, keeping numbers as written.
func decodeStructured(line string) (any, bool) {
	trimmed := strings.TrimSpace(line)
	if trimmed == "" || (trimmed[0] != '{' && trimmed[0] != '[') {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	return v, true
}

func canonical(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Unreachable for values decoded from JSON; keep the line honest anyway.
		return fmt.Sprintf("unencodable (%v)", err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// message masks the members of one JSON-RPC message whose values are chosen
// by the sender: its id, a cancelled request's id, progress tokens.
func (n *normaliser) message(m map[string]any) {
	if id, ok := m["id"]; ok {
		m["id"] = n.ids.mask(id)
	}
	params, _ := m["params"].(map[string]any)
	if params == nil {
		return
	}
	method, _ := m["method"].(string)
	if method == "notifications/cancelled" {
		if rid, ok := params["requestId"]; ok {
			params["requestId"] = n.ids.mask(rid)
		}
		if _, ok := params["reason"]; ok {
			params["reason"] = "<reason>"
		}
	}
	if tok, ok := params["progressToken"]; ok && method == "notifications/progress" {
		params["progressToken"] = n.tokens.mask(tok)
	}
	if meta, ok := params["_meta"].(map[string]any); ok {
		if tok, ok := meta["progressToken"]; ok {
			meta["progressToken"] = n.tokens.mask(tok)
		}
	}
}

// scrub masks, anywhere in a decoded value, what changes between runs
// whatever the message: times, implementation versions, session ids.
func (n *normaliser) scrub(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			switch {
			case strings.EqualFold(k, "timestamp"):
				x[k] = TimePlaceholder
			case strings.EqualFold(k, "mcp-session-id"):
				if s, ok := val.(string); ok {
					x[k] = n.session(s)
				}
			case k == "clientInfo" || k == "serverInfo":
				if info, ok := val.(map[string]any); ok {
					if _, has := info["version"]; has {
						info["version"] = VersionPlaceholder
					}
				}
				x[k] = n.scrub(val)
			default:
				x[k] = n.scrub(val)
			}
		}
	case []any:
		for i := range x {
			x[i] = n.scrub(x[i])
		}
	case string:
		return timestamp.ReplaceAllString(x, TimePlaceholder)
	}
	return v
}

// note masks a note's credentials first, so that a session id read from
// text that runs into an Authorization header cannot take the header's
// name and leave its value behind, then its session ids and times.
func (n *normaliser) note(s string) string {
	s = Redact(s)
	s = sessionHeader.ReplaceAllStringFunc(s, func(m string) string {
		sub := sessionHeader.FindStringSubmatch(m)
		return sub[1] + n.session(sub[2])
	})
	return timestamp.ReplaceAllString(n.eventIDs(s), TimePlaceholder)
}

// eventIDs masks the SSE event ids of s, numbered in order of first sight.
func (n *normaliser) eventIDs(s string) string {
	return eventID.ReplaceAllStringFunc(s, func(m string) string {
		sub := eventID.FindStringSubmatch(m)
		return sub[1] + numbered(n.events, "event", sub[2])
	})
}

// numbered returns v's placeholder "<kindN>", N in order of first sight.
func numbered(seen map[string]string, kind, v string) string {
	if p, ok := seen[v]; ok {
		return p
	}
	p := fmt.Sprintf("<%s%d>", kind, len(seen)+1)
	seen[v] = p
	return p
}

func (n *normaliser) session(v string) string {
	if _, seen := n.sessions[v]; !seen && len(v) >= minEchoedSession {
		n.echoed = append(n.echoed, v)
		slices.SortStableFunc(n.echoed, func(a, b string) int { return len(b) - len(a) })
	}
	return numbered(n.sessions, "session", v)
}

// placeholders numbers the distinct values of one kind (request ids or
// progress tokens) in order of first appearance, numbers and strings apart.
type placeholders struct {
	prefix  string
	seen    map[string]string // "n"+literal or "s"+text → placeholder
	numbers int
	strings int
}

// mask returns the placeholder of a number or string value; any other value
// (null, or an id of a type JSON-RPC does not allow) is returned unchanged.
func (p *placeholders) mask(v any) any {
	var key, kind string
	var count *int
	switch x := v.(type) {
	case json.Number:
		key, kind, count = "n"+x.String(), "n", &p.numbers
	case string:
		key, kind, count = "s"+x, "s", &p.strings
	default:
		return v
	}
	if ph, ok := p.seen[key]; ok {
		return ph
	}
	if p.seen == nil {
		p.seen = map[string]string{}
	}
	*count++
	ph := fmt.Sprintf("<%s%s%d>", p.prefix, kind, *count)
	p.seen[key] = ph
	return ph
}
