package mcp

import "slices"

// The 2026-07-28 era's subscriptions (SB-01 … SB-06): a client opens a
// long-lived stream with subscriptions/listen, naming the notifications it
// wants; the server acknowledges first, tags every notification of the
// stream with the listen request's id, and ends the stream with a listen
// result.
const (
	MethodListen             = "subscriptions/listen"
	NotificationAcknowledged = "notifications/subscriptions/acknowledged"
	MetaSubscriptionID       = "io.modelcontextprotocol/subscriptionId"
)

// SubscriptionFilter is the notifications field of subscriptions/listen
// (what the client opts into) and of its acknowledgement (what the server
// honours). A field left out is a notification type not asked for.
type SubscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// The notifications a listen stream may carry besides its
// acknowledgement, each opted into by one field of SubscriptionFilter.
const (
	NotificationToolsListChanged     = "notifications/tools/list_changed"
	NotificationPromptsListChanged   = "notifications/prompts/list_changed"
	NotificationResourcesListChanged = "notifications/resources/list_changed"
	NotificationResourceUpdated      = "notifications/resources/updated"
)

// Wants reports whether the filter opts into a notification of method
// about uri (uri matters to notifications/resources/updated only).
func (f SubscriptionFilter) Wants(method, uri string) bool {
	switch method {
	case NotificationToolsListChanged:
		return f.ToolsListChanged
	case NotificationPromptsListChanged:
		return f.PromptsListChanged
	case NotificationResourcesListChanged:
		return f.ResourcesListChanged
	case NotificationResourceUpdated:
		return slices.Contains(f.ResourceSubscriptions, uri)
	}
	return false
}
