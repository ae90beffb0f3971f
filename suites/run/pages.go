package run

import (
	"encoding/json"
	"fmt"
)

// MaxPages bounds a walk through a paginated list.
const MaxPages = 100

// Pages walks the pages of a paginated list (PA-01): fetch returns the
// result of method for a cursor ("" for the first page) and Pages returns
// every item of the result's member field, following nextCursor until a page
// has none. A walk that does not end within MaxPages fails the check.
func (c *C) Pages(method, field string, fetch func(cursor string) json.RawMessage) []json.RawMessage {
	var items []json.RawMessage
	cursor := ""
	for range MaxPages {
		var page map[string]json.RawMessage
		_ = json.Unmarshal(fetch(cursor), &page)
		var pageItems []json.RawMessage
		_ = json.Unmarshal(page[field], &pageItems)
		items = append(items, pageItems...)
		cursor = ""
		_ = json.Unmarshal(page["nextCursor"], &cursor)
		if cursor == "" {
			return items
		}
	}
	c.Failf(fmt.Sprintf("%s ends within %d pages", method, MaxPages), "it did not")
	return nil
}

// CursorParams are a list request's params for cursor: none for the first
// page.
func CursorParams(cursor string) any {
	if cursor == "" {
		return nil
	}
	return map[string]any{"cursor": cursor}
}
