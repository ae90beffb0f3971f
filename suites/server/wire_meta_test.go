package server

import "testing"

func TestTraceKeyFormats(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		valid      bool
	}{
		{"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", true},
		{"traceparent", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later", true},
		{"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more", false},
		{"traceparent", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", false},
		{"traceparent", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", false},
		{"traceparent", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", false},
		{"tracestate", "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", true},
		{"tracestate", "tenant@vendor=x, ,other=y", true},
		{"tracestate", "Upper=x", false},
		{"tracestate", "k=a,b", false},
		{"baggage", "userId=alice,serverNode=DF%2028;prop=1;flag", true},
		{"baggage", "no value", false},
		{"baggage", "", false},
	} {
		if got := traceKeys[tc.key](tc.value); got != tc.valid {
			t.Errorf("%s %q: valid %v, want %v", tc.key, tc.value, got, tc.valid)
		}
	}
}

func TestMetaKeyForms(t *testing.T) {
	for _, tc := range []struct {
		key                        string
		badPrefix, badName         bool
		reserved0618, reserved1125 bool
	}{
		{key: "progressToken"},
		{key: "com.example/note"},
		{key: "io.modelcontextprotocol/serverInfo", reserved1125: true},
		{key: "modelcontextprotocol.io/x", reserved0618: true},
		{key: "api.mcp.example/x", reserved0618: true, reserved1125: true},
		{key: "com.example-/x", badPrefix: true},
		{key: "com..example/x", badPrefix: true},
		{key: "1com.example/x", badPrefix: true},
		{key: "com.example/-x", badName: true},
		{key: "com.example/a/b", badName: true},
		{key: "com.example/"},
	} {
		labels, name, _ := splitMetaKey(tc.key)
		_, badPrefix := badLabel(labels)
		badName := name != "" && !metaName.MatchString(name)
		if badPrefix != tc.badPrefix || badName != tc.badName || reservedFollowed(labels) != tc.reserved0618 || reservedSecond(labels) != tc.reserved1125 {
			t.Errorf("%q: bad prefix %v, bad name %v, reserved in 0618 %v, in 1125 %v; want %v %v %v %v", tc.key, badPrefix, badName,
				reservedFollowed(labels), reservedSecond(labels), tc.badPrefix, tc.badName, tc.reserved0618, tc.reserved1125)
		}
	}
}
