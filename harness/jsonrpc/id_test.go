package jsonrpc

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestIDNumberAndStringAreDistinct(t *testing.T) {
	n, s := IntID(2), StringID("2")
	if n.Key() == s.Key() {
		t.Fatalf("IntID(2).Key() == StringID(\"2\").Key() == %q, want distinct keys (NG-12)", n.Key())
	}
	if n.IsString() || !s.IsString() {
		t.Errorf("IsString: IntID(2) %v, StringID(\"2\") %v; want false, true", n.IsString(), s.IsString())
	}
	if n.String() != `2` || s.String() != `"2"` {
		t.Errorf("String: %s and %s, want 2 and \"2\"", n, s)
	}
}

func TestIDZero(t *testing.T) {
	var zero ID
	if !zero.IsZero() || zero.IsString() || zero.String() != "null" {
		t.Errorf("zero ID: IsZero %v, IsString %v, String %q; want true, false, \"null\"",
			zero.IsZero(), zero.IsString(), zero.String())
	}
	for _, id := range []ID{IntID(0), StringID("")} {
		if id.IsZero() {
			t.Errorf("%s.IsZero() = true, want false: 0 and \"\" are ids", id)
		}
	}
}

func TestIDUnmarshalKeepsType(t *testing.T) {
	cases := []struct {
		json    string
		want    ID
		wantStr bool
	}{
		{`2`, IntID(2), false},
		{`"2"`, StringID("2"), true},
		{`-7`, IntID(-7), false},
		{`0`, IntID(0), false},
		{`""`, StringID(""), true},
		{`"\u0032"`, StringID("2"), true},
		{`"a\"b"`, StringID(`a"b`), true},
		{`null`, ID{}, false},
	}
	for _, tc := range cases {
		var id ID
		if err := json.Unmarshal([]byte(tc.json), &id); err != nil {
			t.Errorf("unmarshal %s: %v", tc.json, err)
			continue
		}
		if id.Key() != tc.want.Key() || id.IsString() != tc.wantStr {
			t.Errorf("unmarshal %s: key %q string %v, want key %q string %v",
				tc.json, id.Key(), id.IsString(), tc.want.Key(), tc.wantStr)
		}
	}
}

func TestIDRoundTrip(t *testing.T) {
	for _, id := range []ID{IntID(2), StringID("2"), IntID(-9007199254740993), StringID("ä/\n"), {}} {
		b, err := json.Marshal(id)
		if err != nil {
			t.Fatalf("marshal %s: %v", id, err)
		}
		var back ID
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("unmarshal %s: %v", b, err)
		}
		if back != id {
			t.Errorf("round trip of %s gave %s (%s on the wire)", id, back, b)
		}
	}
}

func TestIDRejectsNonIntegers(t *testing.T) {
	for _, in := range []string{`1.5`, `1e-3`, `-0.5`, `1e400`, `true`, `{}`, `[1]`} {
		var id ID
		err := json.Unmarshal([]byte(in), &id)
		if !errors.Is(err, ErrBadID) {
			t.Errorf("unmarshal id %s: error %v, want ErrBadID (JR-03)", in, err)
		}
	}
}

// TestIDByValue: ids are numbers as JSON-RPC means them, compared by
// value: -0 is 0; 1.0, 1e0 and 10E-1 are 1 (JSON Schema's integer, the
// type of the schemas' RequestId); a big integer keeps all its digits.
func TestIDByValue(t *testing.T) {
	for in, want := range map[string]ID{
		`-0`: IntID(0), `0`: IntID(0), `1.0`: IntID(1), `1e0`: IntID(1), `10E-1`: IntID(1), `1e3`: IntID(1000), `1E+3`: IntID(1000),
		`-2.000`: IntID(-2), `123456789012345678901234567890`: {raw: "123456789012345678901234567890"},
	} {
		var id ID
		if err := json.Unmarshal([]byte(in), &id); err != nil || id.Key() != want.Key() {
			t.Errorf("unmarshal id %s: %s (%v), want %s", in, id, err, want)
		}
	}
	var a, b ID
	_ = json.Unmarshal([]byte(`"0"`), &a)
	_ = json.Unmarshal([]byte(`-0`), &b)
	if a.Key() == b.Key() {
		t.Error(`the string "0" and the number -0 share a key`)
	}
}
