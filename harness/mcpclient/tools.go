package mcpclient

import (
	"context"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// MaxToolPages bounds how many tools/list pages ListTools follows.
const MaxToolPages = 1000

// ListTools lists the server's tools, following nextCursor pagination for at
// most MaxToolPages pages: only its absence (or null) ends the list, so in
// the 2026-07-28 era an empty nextCursor is a cursor like any other
// (PA-04, PA-06); in the legacy era, whose spec does not say that an empty
// cursor is one, an empty nextCursor ends the list too. The cursor goes back exactly as it came (PA-05),
// whatever the pages' sizes (PA-02). In the 2026-07-28 era over HTTP it
// leaves out the tools whose x-mcp-header annotations are invalid (HT-80).
func (s *Session) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	var tools []mcp.Tool
	var params any
	first := -1
	for range MaxToolPages {
		var page struct {
			Tools      []mcp.Tool `json:"tools"`
			NextCursor *string    `json:"nextCursor"`
		}
		if err := s.Call(ctx, "tools/list", params, &page); err != nil {
			return nil, err
		}
		tools = append(tools, page.Tools...)
		if first < 0 {
			first = len(page.Tools)
		}
		cursor, more := s.nextPage(page.NextCursor, first, len(page.Tools))
		if !more {
			return s.keepTools(tools), nil
		}
		params = map[string]string{"cursor": cursor}
	}
	return nil, failure.New(failure.ErrProtocol, "tools/list", fmt.Sprintf(
		"the server still offers a nextCursor after %d pages; the client stops there", MaxToolPages))
}

// endOfList reports whether nextCursor ends a list: absent or null, and in
// the legacy era the empty string too.
func (s *Session) endOfList(next *string) bool {
	return next == nil || (*next == "" && s.era != EraModern)
}

type callToolParams struct {
	Name      string        `json:"name"`
	Arguments any           `json:"arguments,omitempty"`
	Meta      *progressMeta `json:"_meta,omitempty"`
}

// CallTool calls tool name with args (nil sends no arguments). A JSON-RPC
// error response is an error wrapping *jsonrpc.Error; a result with isError
// is returned as a result. A structuredContent that the tool's listed
// outputSchema cannot validate, or that breaks it, fails the call
// (checkStructured).
func (s *Session) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	if err := s.Call(ctx, "tools/call", callToolParams{Name: name, Arguments: args, Meta: s.progressMeta()}, &res); err != nil {
		return nil, err
	}
	if err := s.checkStructured(name, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Ping sends ping and waits for its empty result (PG-01, PG-02).
func (s *Session) Ping(ctx context.Context) error {
	return s.Call(ctx, "ping", nil, nil)
}
