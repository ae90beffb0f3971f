package check

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/target"
)

func valid() Descriptor {
	return Descriptor{ID: "test.client.some-rule", Title: "t", Requirement: "r", Rules: []string{"NG-01"},
		Level: MUST, Role: Client, Transport: Stdio, KilledBy: []mutant.Name{"some-mutant"}}
}

func TestValidateNamesWhatIsWrong(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Descriptor)
		want string
	}{
		{func(d *Descriptor) { d.ID = "has/slash" }, "lower-case words"},
		{func(d *Descriptor) { d.ID = "Upper.Case" }, "lower-case words"},
		{func(d *Descriptor) { d.Title = "" }, "title and requirement"},
		{func(d *Descriptor) { d.Rules = nil }, "rule ID"},
		{func(d *Descriptor) { d.Level = "MAYBE" }, "MUST, SHOULD or MAY"},
		{func(d *Descriptor) { d.Role = "proxy" }, "client or server"},
		{func(d *Descriptor) { d.Transport = "ws" }, "stdio, http or any"},
		{func(d *Descriptor) { d.KilledBy = nil }, "mutant"},
		{func(d *Descriptor) { d.Waits = []Wait{{Setting: Prompt}} }, "says what it waits for"},
		{func(d *Descriptor) { d.Waits = []Wait{{What: "w", Setting: "sleep"}} }, "use quiet-window or tool-budget (server checks) or client-limit, scripted or prompt (client checks)"},
		{func(d *Descriptor) { d.Waits = []Wait{{What: "w", Setting: QuietWindow}} }, "which only a server check waits; a client check's waits are client-limit, scripted or prompt"},
		{func(d *Descriptor) {
			d.Role, d.Waits = Server, []Wait{{What: "w", Setting: ClientLimit, Limit: target.LimitStartupMS}}
		}, "which only a client check waits; a server check's waits are quiet-window or tool-budget"},
		{func(d *Descriptor) { d.Waits = []Wait{{What: "w", Setting: ClientLimit}} }, `names limit ""; use one of cancel_grace_ms`},
		{func(d *Descriptor) {
			d.Waits = []Wait{{What: "w", Setting: ClientLimit, Limit: target.LimitStdoutTextLines}}
		}, `names limit "max_stdout_text_lines"`},
		{func(d *Descriptor) { d.Waits = []Wait{{What: "w", Setting: Prompt, Limit: target.LimitStartupMS}} }, "only a client-limit wait"},
		{func(d *Descriptor) { d.Waits = []Wait{{What: "w", Setting: Scripted}} }, "give the delay the check scripts"},
		{func(d *Descriptor) { d.Waits = []Wait{{What: "w", Setting: Prompt, Duration: time.Second}} }, "only a scripted wait gives one"},
		{func(d *Descriptor) {
			d.Waits = []Wait{{What: "w", Setting: ClientLimit, Limit: target.LimitStartupMS, Times: -1}}
		}, "give 0 (once) or more"},
	} {
		d := valid()
		tc.edit(&d)
		err := d.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one saying %q", d, err, tc.want)
		}
	}
	if err := valid().Validate(); err != nil {
		t.Errorf("valid descriptor: %v", err)
	}
	d := valid()
	d.Waits = []Wait{{What: "w", Setting: ClientLimit, Limit: target.LimitControlRequestMS, Times: 0.5}, {What: "w", Setting: Scripted, Duration: time.Second}, {What: "w", Setting: Prompt}}
	if err := d.Validate(); err != nil {
		t.Errorf("client check with client waits: %v", err)
	}
}

func TestWaitTotalCountsItsTimes(t *testing.T) {
	for _, tc := range []struct {
		times float64
		want  time.Duration
	}{{0, time.Second}, {1, time.Second}, {2, 2 * time.Second}, {0.1, 100 * time.Millisecond}} {
		if got := (Wait{Times: tc.times}).Total(time.Second); got != tc.want {
			t.Errorf("Times %v: a 1s wait totals %s, want %s", tc.times, got, tc.want)
		}
	}
}

func TestLabelsCarryTheDescriptor(t *testing.T) {
	d := valid()
	d.Property, d.Fuzz = true, true
	got := d.Labels()
	for _, want := range []string{"id:test.client.some-rule", "level:MUST", "role:client", "transport:stdio", "rule:NG-01", "era:legacy", "kind:property", "kind:fuzz"} {
		if !slices.Contains(got, want) {
			t.Errorf("labels %v lack %q", got, want)
		}
	}
}

func TestRegistryLookupAndSelection(t *testing.T) {
	d := valid()
	d.ID = "test.registry.one"
	Register(d)
	if _, ok := Lookup(d.ID); !ok {
		t.Fatal("registered check not found")
	}
	if got := KilledBy("some-mutant"); !slices.Contains(got, d.ID) {
		t.Errorf("KilledBy = %v", got)
	}
	if ids, err := ParseIDList(" test.registry.one , "); err != nil || len(ids) != 1 {
		t.Errorf("ParseIDList = %v, %v", ids, err)
	}
	if _, err := ParseIDList("test.registry.one,nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown ID error = %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering an ID twice did not panic")
		}
	}()
	Register(d)
}

func TestOutcomeClasses(t *testing.T) {
	for o, want := range map[Outcome][2]bool{
		Pass: {false, false}, Fail: {true, true}, Warn: {true, false}, ExpectedFail: {true, false},
		Stale: {false, true}, Unimplemented: {false, false}, Skipped: {false, false},
	} {
		if o.Killed() != want[0] || o.Failing() != want[1] {
			t.Errorf("%s: Killed %v Failing %v, want %v", o, o.Killed(), o.Failing(), want)
		}
	}
}

func TestResolveFollowsTheRules(t *testing.T) {
	base := Descriptor{ID: "x.y", Title: "t", Requirement: "r", Role: Client, Transport: Stdio, KilledBy: []mutant.Name{"m"}}
	for _, tc := range []struct {
		name   string
		rules  []string
		level  Level
		source Source
		want   Level
		err    string
	}{
		{"a seed rule only is hardened", []string{"NG-03"}, "", Hardened, MUST, ""},
		{"a server rule never binds the client", []string{"NG-01", "ST-03"}, "", Hardened, MUST, ""},
		{"a client spec rule binds", []string{"NG-07", "LC-31"}, "", Spec, SHOULD, ""},
		{"a rule of another era does not bind", []string{"NG-07", "ST-13"}, "", Hardened, MUST, ""},
		{"a weaker level than the rule's is kept", []string{"HT-54"}, SHOULD, Spec, SHOULD, ""},
		{"a level stronger than the rule's text", []string{"LC-31"}, MUST, "", "", "stronger"},
		{"an unknown rule", []string{"NG-03", "ZZ-01"}, "", "", "", "not in the rule table"},
		{"only the other side's rules", []string{"ST-03"}, "", "", "", "binds the client"},
	} {
		d := base
		d.Rules, d.Level = tc.rules, tc.level
		got, err := d.Resolve()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got.Source != tc.source || got.Level != tc.want {
			t.Errorf("%s: %s %s (%v), want %s %s", tc.name, got.Source, got.Level, err, tc.source, tc.want)
		}
	}
}

// A descriptor that names itself hardened stays so beside a binding spec
// rule (a defence the rule motivates but does not ask for), still citing a
// rule of its side.
func TestResolveKeepsANamedHardenedSource(t *testing.T) {
	d := Descriptor{ID: "x.y", Title: "t", Requirement: "r", Role: Client, Transport: HTTP, KilledBy: []mutant.Name{"m"},
		Rules: []string{"HT-54"}, Source: Hardened}
	if got, err := d.Resolve(); err != nil || got.Source != Hardened || got.Level != MUST {
		t.Errorf("named hardened beside HT-54: %s %s (%v), want hardened MUST", got.Source, got.Level, err)
	}
	d.Level = SHOULD
	if got, err := d.Resolve(); err != nil || got.Source != Hardened || got.Level != SHOULD {
		t.Errorf("named hardened SHOULD: %s %s (%v), want hardened SHOULD", got.Source, got.Level, err)
	}
	d.Rules = []string{"ST-03"}
	if _, err := d.Resolve(); err == nil || !strings.Contains(err.Error(), "binds the client") {
		t.Errorf("named hardened citing only the server's ST-03: error %v, want one saying no rule binds the client", err)
	}
}
