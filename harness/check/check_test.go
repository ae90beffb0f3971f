package check

import (
	"slices"
	"strings"
	"testing"
)

func valid() Descriptor {
	return Descriptor{ID: "test.client.some-rule", Title: "t", Requirement: "r", Rules: []string{"NG-01"},
		Level: MUST, Role: Client, Transport: Stdio, KilledBy: []string{"some-mutant"}}
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
}

func TestLabelsCarryTheDescriptor(t *testing.T) {
	d := valid()
	d.Property = true
	got := d.Labels()
	for _, want := range []string{"id:test.client.some-rule", "level:MUST", "role:client", "transport:stdio", "rule:NG-01", "era:legacy", "kind:property"} {
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
