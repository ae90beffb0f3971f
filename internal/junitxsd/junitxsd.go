// Package junitxsd validates JUnit XML against the schema CI viewers read
// (junit-10.xsd, embedded unchanged; see README.md for its provenance). It
// serves the project's tests and carries no API promise.
package junitxsd

import (
	"bytes"
	_ "embed"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"sync"
)

//go:embed junit-10.xsd
var schemaXSD []byte

// SchemaName names the schema in messages.
const SchemaName = "junit-10.xsd (Jenkins xUnit plugin)"

var load = sync.OnceValues(func() (xsdRules, error) { return parse(schemaXSD) })

// Validate returns every way doc breaks the schema, each with the path of
// the element; none for a valid document. A schema the validator cannot
// read in full is an error, so that it never validates loosely.
func Validate(doc []byte) ([]string, error) {
	rules, err := load()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", SchemaName, err)
	}
	return rules.validate(doc), nil
}

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

func parse(data []byte) (xsdRules, error) {
	var schema struct {
		Elements    []xsdElement `xml:"element"`
		SimpleTypes []struct {
			Name string `xml:"name,attr"`
		} `xml:"simpleType"`
		Unknown []xsdAny `xml:",any"`
	}
	if err := xml.Unmarshal(data, &schema); err != nil {
		return nil, err
	}
	if len(schema.Unknown) > 0 || len(schema.SimpleTypes) > 0 {
		return nil, fmt.Errorf("the schema uses constructs the validator does not read: %v %v", schema.Unknown, schema.SimpleTypes)
	}
	rules := xsdRules{}
	for _, e := range schema.Elements {
		d := &xsdDecl{children: map[string]bool{}, attrs: map[string]bool{}}
		switch {
		case len(e.Unknown) > 0:
			return nil, fmt.Errorf("element %s: unread constructs %v", e.Name, e.Unknown)
		case e.Type == "xs:string" && e.Complex == nil:
			d.simple = true
		case e.Type == "" && e.Complex != nil:
			c := e.Complex
			if len(c.Unknown) > 0 {
				return nil, fmt.Errorf("element %s: unread constructs %v", e.Name, c.Unknown)
			}
			d.mixed = c.Mixed
			for _, a := range c.Attributes {
				if a.Type != "xs:string" {
					return nil, fmt.Errorf("element %s: attribute %s of type %s", e.Name, a.Name, a.Type)
				}
				d.attrs[a.Name] = a.Use == "required"
			}
			if err := collectRefs(e.Name, xsdGroup{Sequence: c.Sequence, Choice: c.Choice}, d.children); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("element %s: type %q not read", e.Name, e.Type)
		}
		rules[e.Name] = d
	}
	return rules, nil
}

func collectRefs(owner string, g xsdGroup, into map[string]bool) error {
	if len(g.Unknown) > 0 {
		return fmt.Errorf("element %s: unread constructs %v", owner, g.Unknown)
	}
	for _, e := range g.Elements {
		if e.Ref == "" {
			return fmt.Errorf("element %s: a local element %q, not a ref", owner, e.Name)
		}
		into[e.Ref] = true
	}
	for _, sub := range append(g.Sequence, g.Choice...) {
		if err := collectRefs(owner, sub, into); err != nil {
			return err
		}
	}
	return nil
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
