package stdiofake

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// Subscriptions share stdout, so a client routes each of their
// notifications by its _meta subscriptionId (ST-15): listen-foreign-ack
// acknowledges, first, a subscription the client never opened.

// ForeignSubscription is the subscription id of the acknowledgement
// listen-foreign-ack sends before the client's own.
const ForeignSubscription = "mcpconform-other-subscription"

func init() {
	cases["listen-foreign-ack"] = fakeCase{
		desc: "2026-07-28: declares tools.listChanged; subscriptions/listen gets first an acknowledgement honouring nothing for subscription " +
			ForeignSubscription + ", which the client never opened, then its own acknowledgement with toolsListChanged when asked; then held open",
		build: fixed(behaviour{capabilities: fakeservers.ListenCapabilities(), listen: acknowledgeAfterForeign}),
	}
}

// acknowledgeAfterForeign is the listen hook of listen-foreign-ack.
func acknowledgeAfterForeign(s *server, m *jsonrpc.Message) {
	foreign := *m
	foreign.ID = jsonrpc.StringID(ForeignSubscription)
	s.stdout.group(func(w *lineWriter) {
		w.message(fakeservers.Acknowledgement(&foreign, true))
		w.message(fakeservers.Acknowledgement(m, false))
	})
	s.rec.Note(fmt.Sprintf("holding subscription %s open", m.ID))
}
