package stdiofake

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestReadRecordMissing(t *testing.T) {
	r, err := ReadRecord(filepath.Join(t.TempDir(), "never-written.jsonl"))
	if err != nil || len(r.Events) != 0 {
		t.Fatalf("ReadRecord of a missing file: %+v, %v; want an empty record", r, err)
	}
}

func TestReadRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "record.jsonl")
	rec, err := OpenRecorder(path)
	if err != nil {
		t.Fatal(err)
	}
	rec.Record(Event{Type: EventStart, PID: 100, Detail: "grandchild"})
	rec.Record(Event{Type: EventChild, PID: 101})
	rec.Recv(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	rec.Recv(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	rec.Recv(`banner text`)
	rec.Recv(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`)
	rec.Record(Event{Type: EventStart, PID: 101, Detail: "grandchild-sleeper"})
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	// The grandchild's exit, then a line torn by a kill.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"t":1,"type":"exit","detail":"slept","by":101}` + "\n" + `{"t":2,"type":"re`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	r, err := ReadRecord(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Events) != 8 {
		t.Fatalf("read %d events; want 8 (the torn line ignored)", len(r.Events))
	}
	if got := r.Lines(); len(got) != 4 || got[2] != "banner text" {
		t.Errorf("Lines() = %q; want the 4 received lines", got)
	}
	if got := len(r.Messages()); got != 3 {
		t.Errorf("Messages() holds %d; want 3", got)
	}
	if got := r.Requests("tools/call"); len(got) != 1 || got[0].ID.Key() != "2" {
		t.Errorf("Requests(tools/call) = %v; want the call with id 2", got)
	}
	if got := len(r.Notifications("notifications/initialized")); got != 1 {
		t.Errorf("Notifications(initialized) holds %d; want 1", got)
	}
	if e, ok := r.FirstRecv("initialize"); !ok || e.T == 0 {
		t.Errorf("FirstRecv(initialize) = %+v, %v; want the stamped event", e, ok)
	}
	if _, ok := r.FirstRecv("ping"); ok {
		t.Error("FirstRecv(ping) found one; want none")
	}
	if got := r.PIDs(); !slices.Equal(got, []int{100, 101}) {
		t.Errorf("PIDs() = %v; want [100 101]", got)
	}
	if got := r.Children(); !slices.Equal(got, []int{101}) {
		t.Errorf("Children() = %v; want [101]", got)
	}
	if r.ExitedByItself() {
		t.Error("ExitedByItself() = true from the grandchild's exit; want false")
	}
	if e, ok := r.First(EventStart); !ok || e.By != os.Getpid() {
		t.Errorf("First(start) = %+v; want one stamped by this process", e)
	}
}

func TestNilRecorder(t *testing.T) {
	var rec *Recorder
	rec.Recv("x")
	rec.Note("y")
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if r, err := OpenRecorder(""); r != nil || err != nil {
		t.Fatalf(`OpenRecorder("") = %v, %v; want nil, nil`, r, err)
	}
}
