package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// The 2026-07-28 subscription stream (SB-01 … SB-06).
const (
	MethodListen       = "subscriptions/listen"
	methodAcknowledged = "notifications/subscriptions/acknowledged"
	metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"
)

// subscriptionBuffer is how many notifications of a subscription wait to be
// read before later ones are dropped.
const subscriptionBuffer = 64

// Subscription is an open subscriptions/listen stream: its notifications
// (after the acknowledgement) arrive on Notifications.
type Subscription struct {
	s  *Session
	p  *pendingCall
	in chan *jsonrpc.Message
	// Honoured is the filter the server acknowledged.
	Honoured map[string]json.RawMessage
}

// Notifications delivers the subscription's notifications.
func (sub *Subscription) Notifications() <-chan *jsonrpc.Message { return sub.in }

// Listen opens a subscriptions/listen stream for filter (toolsListChanged
// …) and waits, within CallTimeout, for the server's
// notifications/subscriptions/acknowledged: nothing of the subscription may
// come before it (SB-02), and it must honour everything asked (SB-04);
// otherwise the stream is closed and an error returned. It needs the
// 2026-07-28 era.
func (s *Session) Listen(ctx context.Context, filter map[string]any) (*Subscription, error) {
	if s.era != EraModern {
		return nil, failure.New(failure.ErrProtocol, MethodListen, "subscriptions/listen belongs to the 2026-07-28 era; this session speaks "+string(s.era))
	}
	sub := &Subscription{s: s, in: make(chan *jsonrpc.Message, subscriptionBuffer)}
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	if s.subs == nil {
		s.subs = map[string]*Subscription{}
	}
	s.subs[jsonrpc.IntID(id).Key()] = sub
	s.mu.Unlock()
	p, err := s.startWith(id, MethodListen, s.withMeta(map[string]json.RawMessage{}, map[string]any{"notifications": filter}), nil)
	if err != nil {
		s.dropSubscription(id)
		return nil, err
	}
	sub.p = p
	if s.opts.Mutant == mutant.ListenNoAckCheck {
		return sub, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
	defer cancel()
	if err := sub.acknowledged(ctx, filter); err != nil {
		sub.Close()
		return nil, err
	}
	return sub, nil
}

// acknowledged waits for the acknowledgement and compares it with filter.
func (sub *Subscription) acknowledged(ctx context.Context, filter map[string]any) error {
	select {
	case m := <-sub.in:
		if m.Method != methodAcknowledged {
			return failure.New(failure.ErrProtocol, MethodListen, fmt.Sprintf(
				"%s came on the subscription before notifications/subscriptions/acknowledged (SB-02)", m.Method))
		}
		var p struct {
			Notifications map[string]json.RawMessage `json:"notifications"`
		}
		_ = json.Unmarshal(m.Params, &p) // unreadable: nothing honoured
		sub.Honoured = p.Notifications
		if missing := unhonoured(filter, p.Notifications); len(missing) > 0 {
			return failure.New(failure.ErrProtocol, MethodListen, fmt.Sprintf(
				"the server acknowledged the subscription without %v, which the client asked for (SB-04)", missing))
		}
		return nil
	case m := <-sub.p.reply:
		return failure.New(failure.ErrProtocol, MethodListen, fmt.Sprintf("the listen request was answered (%s) before it was acknowledged (SB-02)", m.Kind()))
	case err := <-sub.p.failed:
		return err
	case <-sub.s.gone:
		return fmt.Errorf("%s: %w", MethodListen, sub.s.endErr)
	case <-ctx.Done():
		return failure.New(failure.ErrTimeout, MethodListen, fmt.Sprintf("no notifications/subscriptions/acknowledged within %v (SB-02)", sub.s.opts.CallTimeout))
	}
}

// unhonoured lists the keys of filter the acknowledgement does not grant
// as asked.
func unhonoured(filter map[string]any, honoured map[string]json.RawMessage) []string {
	var missing []string
	for k, v := range filter {
		var got any
		if json.Unmarshal(honoured[k], &got) != nil || !reflect.DeepEqual(normalise(v), got) {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	return missing
}

// normalise is v as it reads back from JSON.
func normalise(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// Close ends the subscription: over HTTP by closing its stream, otherwise
// with notifications/cancelled (CN-10).
func (sub *Subscription) Close() {
	s := sub.s
	s.dropSubscription(sub.p.id)
	s.forget(sub.p)
	if sc, ok := s.t.(StreamCanceller); ok && sc.CloseRequest(jsonrpc.IntID(sub.p.id)) {
		return
	}
	s.sendCancelled(sub.p.id, "the client closed the subscription")
}

func (s *Session) dropSubscription(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.subs, jsonrpc.IntID(id).Key())
}

// notify hands a notification that names a subscription in its _meta to
// that subscription; others are ignored.
func (s *Session) notify(m *jsonrpc.Message) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p) // no _meta: no subscription
	raw, ok := p.Meta[metaSubscriptionID]
	if !ok {
		return
	}
	var id jsonrpc.ID
	if json.Unmarshal(raw, &id) != nil {
		return
	}
	s.mu.Lock()
	sub := s.subs[id.Key()]
	if sub == nil && s.opts.Mutant == mutant.ListenNotDemultiplexed {
		for _, open := range s.subs {
			sub = open
			break
		}
	}
	s.mu.Unlock()
	if sub == nil {
		return
	}
	select {
	case sub.in <- m:
	default:
	}
}
