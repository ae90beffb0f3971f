package mcpserver

import (
	"encoding/json"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// subscribeResource answers resources/subscribe: the session's client is
// subscribed to the resource at uri, which it must be able to read (RS-02).
// Params without a uri get -32602, an unknown uri -32002 with the uri in
// data, as resources/read does (RS-05). The reference server's resources
// never change, so a subscription never brings notifications/resources/updated.
func subscribeResource(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	if rc.srv.opts.Mutant == mutant.SubscribeRefused {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "resources/subscribe is not offered by this server"}
	}
	return rc.sess.subscription("resources/subscribe", params, true)
}

// unsubscribeResource answers resources/unsubscribe: the subscription to
// uri ends. Unsubscribing from a resource without a subscription succeeds
// too; the uri is checked as for resources/subscribe.
func unsubscribeResource(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	return rc.sess.subscription("resources/unsubscribe", params, false)
}

// subscription starts (on) or ends the subscription to the uri of method's
// params.
func (sess *serverSession) subscription(method string, params json.RawMessage, on bool) (any, *jsonrpc.Error) {
	uri, rpcErr := knownResourceURI(method, params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.subscribed == nil {
		sess.subscribed = map[string]bool{}
	}
	if on && !sess.subscribed[uri] && len(sess.subscribed) >= maxSubscriptions {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"the session holds %d subscriptions, the server's limit; unsubscribe from one first", maxSubscriptions)}
	}
	if on {
		sess.subscribed[uri] = true
	} else {
		delete(sess.subscribed, uri)
	}
	return struct{}{}, nil
}

// maxSubscriptions bounds a session's subscriptions: any uri of a template
// is a resource, so a client could otherwise grow the set without end.
const maxSubscriptions = 256

// knownResourceURI reads the uri of method's params and checks that a
// resource is there.
func knownResourceURI(method string, params json.RawMessage) (string, *jsonrpc.Error) {
	uri, rpcErr := resourceURI(method, params)
	if rpcErr != nil {
		return "", rpcErr
	}
	if _, ok := resourceContents(uri); !ok {
		return "", resourceNotFound(uri)
	}
	return uri, nil
}
