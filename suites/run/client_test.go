package run

import (
	"strings"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers/stdiofake"
)

// TestEndedUnread tells a client that ended its server before the server
// read a line (its outcome to judge) from an adapter that never started
// the server or left it running unread (a broken adapter contract).
func TestEndedUnread(t *testing.T) {
	const fake = 4242
	start := stdiofake.Event{Type: stdiofake.EventStart, PID: fake}
	for _, tc := range []struct {
		name      string
		events    []stdiofake.Event
		survivors []int
		want      string // a part of the answer; "" for none
	}{
		{"never started", nil, nil, ""},
		{"read a line", []stdiofake.Event{start, {Type: stdiofake.EventRecv, Line: "{}"}, {Type: stdiofake.EventStdinEOF}}, nil, ""},
		{"stdin closed unread", []stdiofake.Event{start, {Type: stdiofake.EventStdinEOF}}, nil, "closed the server's stdin"},
		{"SIGTERM while it wrote a banner", []stdiofake.Event{start, {Type: stdiofake.EventSigterm}}, nil, "SIGTERM"},
		{"stdout closed under it", []stdiofake.Event{start, {Type: stdiofake.EventNote, Detail: "write stdout: write /dev/stdout: broken pipe"}}, nil, "closed its end of the server's stdout"},
		{"killed", []stdiofake.Event{start}, nil, "killed"},
		{"left running", []stdiofake.Event{start}, []int{fake}, ""},
		{"exited by itself", []stdiofake.Event{start, {Type: stdiofake.EventExit, Detail: "watchdog", By: fake}}, nil, ""},
	} {
		r := &ClientRun{Record: &stdiofake.Record{Events: tc.events}, Survivors: tc.survivors}
		got := r.EndedUnread()
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: EndedUnread = %q, want %q", tc.name, got, tc.want)
		}
	}
}
