package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// The standard library has no XML Schema validator, and the module proxy
// offers none in pure Go (the maintained ones bind libxml2 through cgo).
// xsdRules reads the subset of XML Schema that the embedded schema uses —
// global elements, xs:string simple content, complex types that are mixed
// or not, attributes optional or required, content models made of
// xs:choice and xs:sequence over element refs — and refuses any other
// construct, so that a changed schema cannot be validated loosely. Every
// content model of junit-10.xsd admits its children in any order and any
// number, so the rules are: the root is a global element, each child is
// one its parent's model names, text appears only where the type is mixed
// or simple, attributes are the declared ones and the required ones are
// present.
type xsdRules map[string]*xsdDecl

type xsdDecl struct {
	simple   bool // xs:string: text, no attributes, no children
	mixed    bool
	children map[string]bool
	attrs    map[string]bool // name → required
}

type xsdElement struct {
	Name    string      `xml:"name,attr"`
	Ref     string      `xml:"ref,attr"`
	Type    string      `xml:"type,attr"`
	Complex *xsdComplex `xml:"complexType"`
	Unknown []xsdAny    `xml:",any"`
}

type xsdComplex struct {
	Mixed      bool           `xml:"mixed,attr"`
	Attributes []xsdAttribute `xml:"attribute"`
	Sequence   []xsdGroup     `xml:"sequence"`
	Choice     []xsdGroup     `xml:"choice"`
	Unknown    []xsdAny       `xml:",any"`
}

type xsdGroup struct {
	Elements []xsdElement `xml:"element"`
	Sequence []xsdGroup   `xml:"sequence"`
	Choice   []xsdGroup   `xml:"choice"`
	Unknown  []xsdAny     `xml:",any"`
}

type xsdAttribute struct {
	Name string `xml:"name,attr"`
	Type string `xml:"type,attr"`
	Use  string `xml:"use,attr"`
}

type xsdAny struct{ XMLName xml.Name }

func loadXSD(t *testing.T, path string) xsdRules {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Elements    []xsdElement `xml:"element"`
		SimpleTypes []struct {
			Name string `xml:"name,attr"`
		} `xml:"simpleType"`
		Unknown []xsdAny `xml:",any"`
	}
	if err := xml.Unmarshal(data, &schema); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(schema.Unknown) > 0 || len(schema.SimpleTypes) > 0 {
		t.Fatalf("%s uses constructs the test does not read: %v %v", path, schema.Unknown, schema.SimpleTypes)
	}
	rules := xsdRules{}
	for _, e := range schema.Elements {
		d := &xsdDecl{children: map[string]bool{}, attrs: map[string]bool{}}
		switch {
		case len(e.Unknown) > 0:
			t.Fatalf("element %s: unread constructs %v", e.Name, e.Unknown)
		case e.Type == "xs:string" && e.Complex == nil:
			d.simple = true
		case e.Type == "" && e.Complex != nil:
			c := e.Complex
			if len(c.Unknown) > 0 {
				t.Fatalf("element %s: unread constructs %v", e.Name, c.Unknown)
			}
			d.mixed = c.Mixed
			for _, a := range c.Attributes {
				if a.Type != "xs:string" {
					t.Fatalf("element %s: attribute %s of type %s", e.Name, a.Name, a.Type)
				}
				d.attrs[a.Name] = a.Use == "required"
			}
			collectRefs(t, e.Name, xsdGroup{Sequence: c.Sequence, Choice: c.Choice}, d.children)
		default:
			t.Fatalf("element %s: type %q not read", e.Name, e.Type)
		}
		rules[e.Name] = d
	}
	return rules
}

func collectRefs(t *testing.T, owner string, g xsdGroup, into map[string]bool) {
	t.Helper()
	if len(g.Unknown) > 0 {
		t.Fatalf("element %s: unread constructs %v", owner, g.Unknown)
	}
	for _, e := range g.Elements {
		if e.Ref == "" {
			t.Fatalf("element %s: a local element %q, not a ref", owner, e.Name)
		}
		into[e.Ref] = true
	}
	for _, sub := range append(g.Sequence, g.Choice...) {
		collectRefs(t, owner, sub, into)
	}
}

// validate returns every way doc breaks the rules, each with the path of
// the element.
func (r xsdRules) validate(doc []byte) []string {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var problems []string
	var stack []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return append(problems, "not well-formed: "+err.Error())
		}
		where := "/" + strings.Join(stack, "/")
		switch tok := tok.(type) {
		case xml.StartElement:
			name := tok.Name.Local
			d, ok := r[name]
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s: element <%s> is not in the schema", where, name))
			case len(stack) > 0 && !r[stack[len(stack)-1]].allows(name):
				problems = append(problems, fmt.Sprintf("%s: <%s> may not hold <%s>", where, stack[len(stack)-1], name))
			}
			stack = append(stack, name)
			if ok {
				problems = append(problems, d.checkAttrs("/"+strings.Join(stack, "/"), tok.Attr)...)
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) == 0 || strings.TrimSpace(string(tok)) == "" {
				continue
			}
			if d := r[stack[len(stack)-1]]; d != nil && !d.simple && !d.mixed {
				problems = append(problems, fmt.Sprintf("%s: text in <%s>, whose type is not mixed", where, stack[len(stack)-1]))
			}
		}
	}
	return problems
}

func (d *xsdDecl) allows(child string) bool { return d != nil && d.children[child] }

func (d *xsdDecl) checkAttrs(where string, attrs []xml.Attr) []string {
	var problems []string
	seen := map[string]bool{}
	for _, a := range attrs {
		if a.Name.Space != "" {
			continue
		}
		seen[a.Name.Local] = true
		if _, ok := d.attrs[a.Name.Local]; !ok {
			problems = append(problems, fmt.Sprintf("%s: attribute %s is not declared", where, a.Name.Local))
		}
	}
	for name, required := range d.attrs {
		if required && !seen[name] {
			problems = append(problems, fmt.Sprintf("%s: required attribute %s is missing", where, name))
		}
	}
	return problems
}

// junitSchema is the published JUnit schema the reports must satisfy.
const junitSchema = "testdata/junit-10.xsd"

func TestSchemaRulesRejectWhatTheSchemaForbids(t *testing.T) {
	rules := loadXSD(t, junitSchema)
	for doc, want := range map[string]string{
		`<testsuites><testsuite tests="1"><testcase name="a"/></testsuite></testsuites>`:                          "",
		`<testsuites><testsuite><testcase name="a"/></testsuite></testsuites>`:                                    "required attribute tests",
		`<testsuites><testsuite tests="1"><testcase name="a" owner="x"/></testsuite></testsuites>`:                "attribute owner is not declared",
		`<testsuites><testcase name="a"/></testsuites>`:                                                           "may not hold <testcase>",
		`<testsuites><testsuite tests="1">text</testsuite></testsuites>`:                                          "text in <testsuite>",
		`<testsuites><bogus/></testsuites>`:                                                                       "not in the schema",
		`<testsuites><testsuite tests="1"><properties><property name="a"/></properties></testsuite></testsuites>`: "required attribute value",
	} {
		got := strings.Join(rules.validate([]byte(doc)), "; ")
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: problems %q, want %q", doc, got, want)
		}
	}
}
