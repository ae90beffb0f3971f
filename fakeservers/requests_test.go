package fakeservers

import (
	"testing"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// A response ends the wait for its request's id, and for an integer id
// also when it echoes that id as a string (which the checks judge); any
// other id ends no wait.
func TestRepliesArrived(t *testing.T) {
	for _, tc := range []struct {
		waiting, answered jsonrpc.ID
		woken             bool
	}{
		{jsonrpc.IntID(7), jsonrpc.IntID(7), true},
		{jsonrpc.IntID(7), jsonrpc.StringID("7"), true},
		{jsonrpc.StringID("srv-ping"), jsonrpc.StringID("srv-ping"), true},
		{jsonrpc.StringID("srv-ping"), jsonrpc.StringID("srv-roots"), false},
		{jsonrpc.IntID(7), jsonrpc.IntID(8), false},
	} {
		var r Replies
		ch := r.Expect(tc.waiting)
		r.Arrived(&jsonrpc.Message{ID: tc.answered, Result: []byte("{}")})
		select {
		case <-ch:
			if !tc.woken {
				t.Errorf("the wait for %s ended by a response with id %s", tc.waiting, tc.answered)
			}
		default:
			if tc.woken {
				t.Errorf("the wait for %s not ended by a response with id %s", tc.waiting, tc.answered)
			}
		}
	}
}
