package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HeaderParamPrefix starts the name of each header that mirrors a tool
// argument its inputSchema annotates with x-mcp-header (HT-79): the
// annotation's value follows it.
const HeaderParamPrefix = "Mcp-Param-"

// ParamHeaderProblem says how the Mcp-Param-* headers of a 2026-07-28
// tools/call disagree with the arguments they mirror (HT-81), for the
// tool whose inputSchema is given: a header missing while its argument is
// there, sent while the argument is absent or null, sent twice, carrying a
// byte that is not printable ASCII or base64 that does not decode to UTF-8
// (HT-78), or naming another value (numbers compared as numbers). Headers
// the schema does not annotate are left alone (HT-84). "" when they agree.
func ParamHeaderProblem(h http.Header, inputSchema, args json.RawMessage) string {
	var schema struct {
		Properties map[string]struct {
			Header *string `json:"x-mcp-header"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(inputSchema, &schema)
	var argv map[string]json.RawMessage
	_ = json.Unmarshal(args, &argv)
	names := make([]string, 0, len(schema.Properties))
	for name := range schema.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if suffix := schema.Properties[name].Header; suffix != nil {
			if problem := paramProblem(HeaderParamPrefix+*suffix, h.Values(HeaderParamPrefix+*suffix), name, argv[name]); problem != "" {
				return problem
			}
		}
	}
	return ""
}

// paramProblem checks the values of one Mcp-Param header against the
// argument it mirrors.
func paramProblem(header string, values []string, name string, arg json.RawMessage) string {
	absent := len(arg) == 0 || string(arg) == "null"
	switch {
	case absent && len(values) == 0:
		return ""
	case absent:
		return fmt.Sprintf("the %s header is sent but argument %q is absent or null; leave the header out then", header, name)
	case len(values) != 1:
		return fmt.Sprintf("the POST needs one %s header mirroring argument %q (%s), it has %d", header, name, arg, len(values))
	}
	got, err := decodeParamValue(values[0])
	if err != nil {
		return fmt.Sprintf("the %s header (%q) is not a valid value: %v; send printable ASCII as it is, anything else as %s<padded base64 of its UTF-8>%s", header, values[0], err, encodedPrefix, encodedSuffix)
	}
	if !mirrors(got, arg) {
		return fmt.Sprintf("the %s header (%q) differs from argument %q (%s); send the same value in both", header, values[0], name, arg)
	}
	return ""
}

// decodeParamValue reads a header value: base64 of UTF-8 between the
// markers, strictly (padding included), or else plain printable ASCII
// taken literally (HT-78).
func decodeParamValue(v string) (string, error) {
	if !strings.HasPrefix(v, encodedPrefix) || !strings.HasSuffix(v, encodedSuffix) || len(v) < len(encodedPrefix)+len(encodedSuffix) {
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] > 0x7e {
				return "", fmt.Errorf("byte %#02x at offset %d is not printable ASCII", v[i], i)
			}
		}
		return v, nil
	}
	d, err := decodeHeaderValue(v)
	if err != nil {
		return "", fmt.Errorf("its base64 does not decode (%v)", err)
	}
	if !utf8.ValidString(d) {
		return "", fmt.Errorf("its base64 decodes to bytes that are not UTF-8")
	}
	return d, nil
}

// mirrors reports whether a header's decoded value names the argument's
// value: a string as it is, a number as a number (42 and 42.0 alike), a
// boolean as true or false.
func mirrors(got string, arg json.RawMessage) bool {
	switch arg[0] {
	case '"':
		var s string
		return json.Unmarshal(arg, &s) == nil && s == got
	case 't', 'f':
		return got == string(arg)
	case '{', '[':
		return false
	}
	want, err1 := strconv.ParseFloat(string(arg), 64)
	have, err2 := strconv.ParseFloat(got, 64)
	return err1 == nil && err2 == nil && want == have
}
