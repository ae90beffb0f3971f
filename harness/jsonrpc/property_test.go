package jsonrpc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// seedEnv names the variable that replays a property run with another seed.
const seedEnv = "MCPCONFORM_SEED"

const defaultSeed = 20260728

func propertyParameters(t *testing.T) *gopter.TestParameters {
	t.Helper()
	seed := int64(defaultSeed)
	if s := os.Getenv(seedEnv); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q is not an integer; unset it or give a seed such as %d", seedEnv, s, defaultSeed)
		}
		seed = n
	}
	t.Logf("gopter seed %d (%s=%d replays this run)", seed, seedEnv, seed)
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = 1000
	p.MaxSize = 24
	return p
}

func genID() gopter.Gen {
	return gen.OneGenOf(
		gen.Int64().Map(IntID),
		gen.Int64Range(-3, 3).Map(func(n int64) ID { return StringID(strconv.FormatInt(n, 10)) }),
		gen.AnyString().Map(StringID),
	)
}

func genMethod() gopter.Gen {
	return gen.OneGenOf(
		gen.OneConstOf("initialize", "tools/list", "tools/call", "notifications/progress", "ping"),
		gen.Identifier(),
		gen.AnyString().SuchThat(func(s string) bool { return s != "" }),
	)
}

// genMessage generates requests, notifications, results and errors with
// number and string ids, arbitrary method names, and object, array or no params.
func genMessage() gopter.Gen {
	return gopter.CombineGens(
		gen.IntRange(int(KindRequest), int(KindError)),
		genID(),
		genMethod(),
		gen.IntRange(0, 2),
		gen.MapOf(gen.AnyString(), gen.Int64()),
		gen.SliceOf(gen.AnyString()),
		gen.Int64(),
		gen.AnyString(),
	).Map(func(v []any) *Message {
		id, method := v[1].(ID), v[2].(string)
		var params any
		switch v[3].(int) {
		case 1:
			params = v[4]
		case 2:
			params = v[5]
		}
		var m *Message
		var err error
		switch Kind(v[0].(int)) {
		case KindRequest:
			m, err = NewRequest(id, method, params)
		case KindNotification:
			m, err = NewNotification(method, params)
		case KindResult:
			m, err = NewResult(id, v[4])
		default:
			m = NewError(id, v[6].(int64), v[7].(string))
		}
		if err != nil {
			panic(fmt.Sprintf("building a generated message: %v", err))
		}
		return m
	})
}

// genText generates lines that NG-01 says are skippable: after optional white
// space and BOM, a first character that cannot start JSON, then anything
// without "jsonrpc", braces and brackets included.
func genText() gopter.Gen {
	firstRune := gen.Rune().SuchThat(func(r rune) bool {
		return !strings.ContainsRune("{[\"-0123456789tfn \t\r\n\uFEFF", r)
	})
	token := gen.OneGenOf(
		gen.OneConstOf("{", "}", "[", "]", `"id":1`, `"method":"x"`, "json", "rpc", "JSON-RPC", " ", "\t", "2.0", "\xff", bom),
		gen.AnyString(),
	)
	return gopter.CombineGens(
		gen.OneConstOf("", " ", "\t ", bom, " "+bom),
		gen.OneGenOf(firstRune.Map(func(r rune) string { return string(r) }), gen.OneConstOf("\xff", "\xc3\x28", "\f{")),
		gen.SliceOf(token),
		gen.OneConstOf("", " ", "\r"),
	).Map(func(v []any) string {
		return v[0].(string) + v[1].(string) + strings.Join(v[2].([]string), "") + v[3].(string)
	}).SuchThat(func(s string) bool { return !strings.Contains(s, "jsonrpc") })
}

func TestProperties(t *testing.T) {
	props := gopter.NewProperties(propertyParameters(t))

	props.Property("an encoded message is a message line and decodes to the same kind and id",
		prop.ForAll(func(m *Message) string {
			line, err := Encode(m)
			if err != nil {
				return "Encode: " + err.Error()
			}
			if c := ClassifyLine(line); c != ClassMessage {
				return fmt.Sprintf("%s classifies as %v", line, c)
			}
			back, err := Decode(line)
			if err != nil {
				return fmt.Sprintf("Decode(%s): %v", line, err)
			}
			if back.Kind() != m.Kind() || back.ID.Key() != m.ID.Key() || back.ID.IsString() != m.ID.IsString() {
				return fmt.Sprintf("%s decoded as %v %s, want %v %s", line, back.Kind(), back.ID, m.Kind(), m.ID)
			}
			return ""
		}, genMessage()))

	props.Property("text that cannot be a damaged message is skippable",
		prop.ForAll(func(line string) bool {
			return ClassifyLine([]byte(line)) == ClassText
		}, genText()))

	props.Property("a message cut short is damaged, never text",
		prop.ForAll(func(m *Message, cut float64, lead string) string {
			line, err := Encode(m)
			if err != nil {
				return "Encode: " + err.Error()
			}
			n := 1 + int(cut*float64(len(line)-1))
			n = min(n, len(line)-1)
			prefix := lead + string(line[:n])
			if c := ClassifyLine([]byte(prefix)); c != ClassDamaged {
				return fmt.Sprintf("%q classifies as %v", prefix, c)
			}
			return ""
		}, genMessage(), gen.Float64Range(0, 1), gen.OneConstOf("", " ", bom, "\t"+bom+" ")))

	props.TestingRun(t)
}
