package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// page cuts the page of items that params.cursor asks for out of a list
// named list (PA-01): PageSize items from the cursor's offset, and the
// cursor of the next page when more remain. Cursors are opaque strings that
// name their list and offset; one the server did not issue for this list
// gets -32602 (PA-03).
func page[T any](s *Server, list string, items []T, params json.RawMessage) ([]T, string, *jsonrpc.Error) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if err := mcp.DecodeParams(params, &p); err != nil {
		return nil, "", mcp.InvalidParams(fmt.Sprintf("%s: params must be an object with an optional string cursor", list))
	}
	if s.opts.Mutant == mutant.CursorBoundToConnection {
		list += fmt.Sprintf("#%p", s) // a cursor of another server instance names another list
	}
	start := 0
	if p.Cursor != nil {
		offset, ok := decodeCursor(list, *p.Cursor, len(items))
		if !ok && s.opts.Mutant != mutant.InvalidCursorAccepted {
			return nil, "", mcp.InvalidParams(fmt.Sprintf("%s: cursor %q was not issued by this server for this list; start again without a cursor", list, *p.Cursor))
		}
		start = offset
	}
	end := min(start+s.opts.PageSize, len(items))
	next := ""
	if end < len(items) {
		next = encodeCursor(list, end)
		if s.opts.Mutant == mutant.PaginationRepeats && end-1 > start {
			next = encodeCursor(list, end-1)
		}
	}
	return items[start:end], next, nil
}

// encodeCursor makes the cursor of the page of list that starts at offset.
func encodeCursor(list string, offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(list + "@" + strconv.Itoa(offset)))
}

// decodeCursor reads a cursor of list: an offset inside a list of n items
// that is not its start (the first page has no cursor).
func decodeCursor(list, cursor string, n int) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, false
	}
	name, num, found := strings.Cut(string(raw), "@")
	offset, err := strconv.Atoi(num)
	if !found || name != list || err != nil || offset <= 0 || offset >= n || encodeCursor(list, offset) != cursor {
		return 0, false
	}
	return offset, true
}
