package stdio

import (
	"fmt"

	"github.com/mcpconform/mcpconform/fakeservers"
	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
	"github.com/mcpconform/mcpconform/harness/check"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
	"github.com/mcpconform/mcpconform/suites/run"
)

// Subscriptions share the server's stdout, so their notifications are
// routed by their _meta subscriptionId (ST-15).

var _ = clientCheck(check.Descriptor{
	ID:    "stdio.client.subscriptions.demultiplexed",
	Title: "an acknowledgement naming a subscription the client never opened is not taken for its own",
	Requirement: "Subscription notifications on the shared stdout are routed by their _meta io.modelcontextprotocol/subscriptionId: an acknowledgement " +
		"that names another subscription, honouring nothing, does not close the client's own subscriptions/listen, whose acknowledgement follows it.",
	Rules:    []string{"ST-15"},
	Eras:     check.ModernEra,
	KilledBy: []mutant.Name{mutant.ListenNotDemultiplexed},
}, func(c *run.C) {
	if full := listenLine(c, "listen"); full.Outcome != target.OutcomeOK {
		c.Unimplemented(fmt.Sprintf("a subscription acknowledged as asked did not open either (%s), so a failed one says nothing of how notifications are routed", full.Error))
	}
	if short := listenLine(c, "listen-ack-short"); short.Outcome == target.OutcomeOK {
		c.Unimplemented("the client takes a subscription acknowledged short for the one it asked (SB-04, judged by client.subscriptions.acknowledgement), " +
			"so taking another subscription's short acknowledgement for its own would not show")
	}
	foreign := listenLine(c, "listen-foreign-ack")
	c.Require(foreign.Outcome == target.OutcomeOK,
		fmt.Sprintf("the subscription opens: the acknowledgement for %s, honouring nothing, is another subscription's", stdiofake.ForeignSubscription),
		"the listen line says %s (%s): the client took the acknowledgement of a subscription it never opened for its own", foreign.Outcome, foreign.Error)
})

// listenLine runs the client against listen case name and returns the
// adapter's listen line; without a subscription or a listen line there is
// nothing to judge.
func listenLine(c *run.C, name string) *target.Phase {
	r := c.RunStdioClient(stdiofake.Options{Case: name}, target.Invocation{})
	wantRead(c, r)
	if len(r.Record.Requests(fakeservers.MethodListen)) == 0 {
		c.Unimplemented("the client opened no subscriptions/listen, though the server declares tools.listChanged; " +
			"an adapter whose client subscribes opens one for toolsListChanged and prints a listen line")
	}
	if r.Listen == nil {
		c.Unimplemented(`the adapter printed no listen line; it must print {"listen":{"outcome":"ok"|"error",…}} once its client's subscription is acknowledged or refused`)
	}
	return r.Listen
}
