package fakeservers

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// The subscription stream of 2026-07-28 (SB-01 … SB-06) as the listen cases
// script it.
const (
	MethodListen       = "subscriptions/listen"
	MethodAcknowledged = "notifications/subscriptions/acknowledged"
	// MetaSubscriptionID names the subscription a notification belongs to
	// (SB-03).
	MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
)

// ListenCapabilities are the capabilities of the listen cases: a tool list
// that may change, the one thing a client can subscribe to there.
func ListenCapabilities() map[string]any {
	return map[string]any{"tools": map[string]any{"listChanged": true}}
}

// Asked is the filter subscriptions/listen request m asks for
// (params.notifications).
func Asked(m *jsonrpc.Message) map[string]json.RawMessage {
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	_ = mcp.DecodeParams(m.Params, &p) // unreadable: nothing asked
	return p.Notifications
}

// Acknowledgement is the notification that opens subscription m (SB-02,
// SB-03): it honours toolsListChanged when m asks for it, the one
// notification the fakes offer; short, it honours nothing, whatever was
// asked, so that a client comparing the two sees the difference (SB-04).
func Acknowledgement(m *jsonrpc.Message, short bool) *jsonrpc.Message {
	honoured := map[string]any{}
	if asked := Asked(m); !short && string(asked["toolsListChanged"]) == "true" {
		honoured["toolsListChanged"] = true
	}
	n, err := jsonrpc.NewNotification(MethodAcknowledged, map[string]any{
		"_meta":         map[string]any{MetaSubscriptionID: m.ID},
		"notifications": honoured,
	})
	if err != nil {
		panic(fmt.Sprintf("fakeservers: encode acknowledgement: %v", err))
	}
	return n
}
