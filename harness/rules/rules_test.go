package rules

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestTableMatchesItsDocuments(t *testing.T) {
	spec, err := os.ReadFile("../../../shared/spec/mcp-requirements.md")
	if err != nil {
		t.Skip("the specification digest is not beside the project:", err)
	}
	seeds, err := os.ReadFile("../../../shared/seeds/SEMANTICS.md")
	if err != nil {
		t.Skip("the seed semantics are not beside the project:", err)
	}
	list, err := FromDocuments(spec, seeds)
	if err != nil {
		t.Fatal(err)
	}
	before, err := ReadTSV(tableTSV)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteTSV(&b, KeepReasons(list, before))
	if b.String() != string(tableTSV) {
		t.Fatal("rules.tsv is out of date with its documents: run go generate ./harness/rules")
	}
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		id       string
		source   Source
		side     string
		keywords string
		primary  string
	}{
		{"ST-03", Spec, "server", "MUST", "MUST"},
		{"HT-56", Spec, "server", "MUST MAY", "MAY"},
		{"LG-04", Spec, "server", "SHOULD", "SHOULD"},
		{"NG-03", Hardened, "client", "MUST", "MUST"},
		{"CX-04", Hardened, "server", "MUST", "MUST"},
		{"PA-01", Spec, "server", "", ""},
	} {
		r, ok := Lookup(tc.id)
		if !ok {
			t.Fatalf("%s not in the table", tc.id)
		}
		if r.Source != tc.source || r.Side != tc.side || strings.Join(r.Keywords(), " ") != tc.keywords || r.Primary() != tc.primary {
			t.Errorf("%s: source %s side %s keywords %v primary %q; want %s %s %q %q", tc.id, r.Source, r.Side, r.Keywords(), r.Primary(), tc.source, tc.side, tc.keywords, tc.primary)
		}
		if r.Text == "" || r.URL == "" || r.Section == "" {
			t.Errorf("%s: no text, URL or section", tc.id)
		}
	}
	for id, want := range map[string]string{"ST-03": "3 stdio transport", "HT-56": "4.6 Sessions (legacy only)", "NG-03": "NG: stdio client"} {
		if r, _ := Lookup(id); r.Section != want {
			t.Errorf("%s: section %q, want %q", id, r.Section, want)
		}
	}
	if got := Unknown([]string{"ST-03", "XX-99"}); len(got) != 1 || got[0] != "XX-99" {
		t.Errorf("Unknown = %v, want [XX-99]", got)
	}
}

func TestCovers(t *testing.T) {
	for _, tc := range []struct {
		versions       string
		legacy, modern bool
	}{
		{"all", true, true},
		{"0326–1125", true, false},
		{"0728", false, true},
		{"1125–0728", true, true},
		{"1125", true, false},
	} {
		r := Rule{Versions: tc.versions}
		names := r.VersionNames()
		if len(names) == 0 || (tc.versions == "all") != (len(names) == len(versionCodes)) || (tc.modern != (names[len(names)-1] == "2026-07-28")) {
			t.Errorf("%s: versions %v", tc.versions, names)
		}
		if r.Covers("legacy") != tc.legacy || r.Covers("modern") != tc.modern {
			t.Errorf("%s: covers legacy %v modern %v, want %v %v", tc.versions, r.Covers("legacy"), r.Covers("modern"), tc.legacy, tc.modern)
		}
	}
}

func TestReasons(t *testing.T) {
	both := Rule{ID: "XX-01", Level: "MUST", Side: "both", Source: Spec, Reason: "client: about a user interface"}
	if both.ReasonFor("client") != "about a user interface" || both.ReasonFor("server") != "" {
		t.Errorf("a reason for the client: client %q, server %q", both.ReasonFor("client"), both.ReasonFor("server"))
	}
	if all := (Rule{Reason: "about the host's storage"}); all.ReasonFor("client") != all.Reason || all.ReasonFor("server") != all.Reason {
		t.Error("a reason without a role holds for both")
	}
	for _, bad := range []string{
		"XX-01\tMAY\tserver\tall\tspec\ts\tu\tt\tabout a user interface",          // a MAY counts nowhere
		"NG-01\tMUST\tclient\tall\thardened\ts\tu\tt\tabout a user interface",     // a seed rule
		"XX-01\tMUST\tserver\tall\tspec\ts\tu\tt\tclient: about a user interface", // a role the rule does not bind alone
	} {
		if _, err := ReadTSV([]byte(strings.Join(columns, "\t") + "\n" + bad + "\n")); err == nil {
			t.Errorf("ReadTSV took %q", bad)
		}
	}
	kept := KeepReasons([]Rule{{ID: "A"}, {ID: "B"}}, []Rule{{ID: "A", Reason: "r"}, {ID: "C", Reason: "gone"}})
	if kept[0].Reason != "r" || kept[1].Reason != "" {
		t.Errorf("KeepReasons = %+v", kept)
	}
}

func TestMeasure(t *testing.T) {
	cov := Measure(map[string][]Citation{"ST-03": {{"server.stdio.stdout-only-jsonrpc", "server"}}, "JR-01": {{"c", "client"}}})
	var st, mr AreaTally
	for _, a := range cov.Areas {
		switch a.Code {
		case "ST":
			st = a
		case "MR":
			mr = a
		}
	}
	if st.Roles["server"].WithCheck != 1 || st.Roles["client"].WithCheck != 0 || !st.Counted || mr.Counted {
		t.Errorf("ST %+v, MR counted %v", st, mr.Counted)
	}
	for _, e := range cov.Entries {
		if e.ID == "JR-01" && (!e.CheckedFor("client") || !slices.Equal(e.Waiting(), []string{"server"})) {
			t.Errorf("JR-01 (both, cited by a client check): waiting %v", e.Waiting())
		}
		if e.Source != Spec {
			t.Errorf("%s: a seed rule measured", e.ID)
		}
	}
	for _, role := range Roles {
		tl := cov.Roles[role]
		if p, ok := tl.Percent(); !ok || tl.Rules != tl.WithReason+tl.Judgeable || p < 0 || p > 100 {
			t.Errorf("%s: %+v", role, tl)
		}
	}
}
