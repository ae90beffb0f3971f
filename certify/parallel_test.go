package certify

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/check"
)

// progressLog records what a console is told.
type progressLog struct {
	mu     sync.Mutex
	events []string
}

func (p *progressLog) Started(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, "start "+id)
}

func (p *progressLog) Finished(id string, o check.Outcome, took time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, fmt.Sprintf("end %s %s %s", id, o, took))
}

// TestSerialChecksRunAlone drives the coordinator as two workers do: a
// serial check waits until the check in flight is done, nothing starts
// while it runs, and a check is given to one worker only. The console
// hears of each check as it starts and ends, with its outcome and time.
func TestSerialChecksRunAlone(t *testing.T) {
	dir, err := os.MkdirTemp("", "mcpconform-coord-") // a short path: Unix socket names are limited
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var progress progressLog
	co, err := newCoordinator(filepath.Join(dir, "c.sock"), &progress, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer co.close()
	dial := func(w int) *claimClient {
		c, err := dialCoordinator(shardConf{socket: co.path, worker: w})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := dial(0), dial(1)
	claim := func(c *claimClient, id string, serial bool) bool {
		ok, err := c.Claim(id, serial)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !claim(a, "one", false) || claim(b, "one", false) {
		t.Fatal("check one should go to worker 0 alone")
	}
	// A claim in a goroutine reports its error on the channel: t.Fatal
	// belongs to the test's goroutine.
	type claimed struct {
		ok  bool
		err error
	}
	claimAsync := func(c *claimClient, id string, serial bool) <-chan claimed {
		ch := make(chan claimed, 1)
		go func() { ok, err := c.Claim(id, serial); ch <- claimed{ok, err} }()
		return ch
	}
	granted := func(ch <-chan claimed, what string) {
		t.Helper()
		select {
		case r := <-ch:
			if r.err != nil || !r.ok {
				t.Fatalf("%s: granted %v, error %v", what, r.ok, r.err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no answer within 10s", what)
		}
	}
	got := claimAsync(b, "alone", true)
	select {
	case <-got:
		t.Fatal("the serial check started while check one ran")
	case <-time.After(100 * time.Millisecond): // nothing may arrive: the claim must stay blocked
	}
	a.Done("one", check.Pass, 1500*time.Millisecond)
	granted(got, "the serial check, once check one was done")
	next := claimAsync(a, "two", false)
	select {
	case <-next:
		t.Fatal("check two started while the serial check ran")
	case <-time.After(100 * time.Millisecond):
	}
	b.Done("alone", check.NotApplicable, 20*time.Millisecond)
	granted(next, "check two, once the serial check was done")
	progress.mu.Lock()
	defer progress.mu.Unlock()
	want := []string{"start one", "end one PASS 1.5s", "start alone", "end alone N/A 20ms", "start two"}
	if !slices.Equal(progress.events, want) {
		t.Errorf("the console heard %q, want %q", progress.events, want)
	}
}

// TestClientChecksKeepTheirCap: in a run of both roles the coordinator
// holds client checks to their cap while server checks start beside them.
func TestClientChecksKeepTheirCap(t *testing.T) {
	var clients, servers []string
	for _, d := range check.All() {
		if d.Role == check.Client {
			clients = append(clients, d.ID)
		} else {
			servers = append(servers, d.ID)
		}
	}
	if len(clients) < 2 || len(servers) < 1 {
		t.Fatalf("the catalogue has %d client and %d server checks; want 2 and 1", len(clients), len(servers))
	}
	dir, err := os.MkdirTemp("", "mcpconform-cap-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	co, err := newCoordinator(filepath.Join(dir, "c.sock"), &progressLog{}, false, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer co.close()
	a, err := dialCoordinator(shardConf{socket: co.path, worker: 0})
	if err != nil {
		t.Fatal(err)
	}
	b, err := dialCoordinator(shardConf{socket: co.path, worker: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := a.Claim(clients[0], false); !ok || err != nil {
		t.Fatalf("the first client check: granted %v, error %v", ok, err)
	}
	if ok, err := b.Claim(servers[0], false); !ok || err != nil {
		t.Fatalf("a server check beside it: granted %v, error %v", ok, err)
	}
	second := make(chan error, 1)
	go func() {
		ok, err := b.Claim(clients[1], false)
		if err == nil && !ok {
			err = fmt.Errorf("refused")
		}
		second <- err
	}()
	select {
	case err := <-second:
		t.Fatalf("a second client check started past the cap of 1 (error %v)", err)
	case <-time.After(100 * time.Millisecond): // nothing may arrive: the claim must stay blocked
	}
	a.Done(clients[0], check.Pass, time.Millisecond)
	select {
	case err := <-second:
		if err != nil {
			t.Fatalf("the second client check, once the first was done: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second client check was not granted within 10s of the first one's end")
	}
}

// TestOneWorkerAwaitsASerialCheck: against a user's server a Serial check
// waits until nothing runs, but only the first worker that reaches it
// waits; another that reaches it meanwhile goes on at once (it is not
// its), and the first is granted it once the check in flight ends.
func TestOneWorkerAwaitsASerialCheck(t *testing.T) {
	var serial, other, third string
	for _, d := range check.All() {
		switch {
		case d.Serial && serial == "":
			serial = d.ID
		case !d.Serial && d.Role == check.Server && other == "":
			other = d.ID
		case !d.Serial && d.Role == check.Server && third == "":
			third = d.ID
		}
	}
	dir := t.TempDir()
	co, err := newCoordinator(filepath.Join(dir, "c.sock"), &progressLog{}, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer co.close()
	var ws []*claimClient
	for i := range 3 {
		w, err := dialCoordinator(shardConf{socket: co.path, worker: i})
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	if ok, err := ws[0].Claim(other, false); !ok || err != nil {
		t.Fatalf("%s: granted %v, error %v", other, ok, err)
	}
	first := make(chan error, 1)
	go func() {
		ok, err := ws[1].Claim(serial, true)
		if err == nil && !ok {
			err = fmt.Errorf("refused")
		}
		first <- err
	}()
	// Once the first waits for it, the second worker to reach the serial
	// check is told at once that it is not its.
	deadline := time.Now().Add(10 * time.Second)
	for waiting := false; !waiting; {
		co.mu.Lock()
		_, waiting = co.awaited[serial]
		co.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no worker waits for %s 10s after the first asked for it", serial)
		}
		runtime.Gosched()
	}
	if ok, err := ws[2].Claim(serial, true); ok || err != nil {
		t.Fatalf("%s: granted to a second worker %v, error %v; want refused at once", serial, ok, err)
	}
	// A check not yet started waits behind the serial one waited for.
	later := make(chan error, 1)
	go func() {
		ok, err := ws[2].Claim(third, false)
		if err == nil && !ok {
			err = fmt.Errorf("refused")
		}
		later <- err
	}()
	select {
	case err := <-first:
		t.Fatalf("%s started beside %s (error %v)", serial, other, err)
	case err := <-later:
		t.Fatalf("%s started while %s was waited for (error %v)", third, serial, err)
	case <-time.After(50 * time.Millisecond):
	}
	ws[0].Done(other, check.Pass, time.Millisecond)
	select {
	case err := <-first:
		if err != nil {
			t.Fatalf("%s, once %s was done: %v", serial, other, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s was not granted within 10s of %s's end", serial, other)
	}
	select {
	case err := <-later:
		t.Fatalf("%s started beside the serial %s (error %v)", third, serial, err)
	default:
	}
	ws[1].Done(serial, check.Pass, time.Millisecond)
	select {
	case err := <-later:
		if err != nil {
			t.Fatalf("%s, once %s was done: %v", third, serial, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s was not granted within 10s of %s's end", third, serial)
	}
}
