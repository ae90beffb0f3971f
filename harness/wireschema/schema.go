package wireschema

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// files holds each version's schema.json and the 2026-07-28 examples,
// unchanged from the specification repository (schema/README.md).
//
//go:embed schema
var files embed.FS

// Versions are the protocol versions with an embedded schema, oldest first.
var Versions = []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// LatestLegacy is the newest version of the legacy era: the schema a
// legacy version without one of its own (2024-11-05) is validated with.
const LatestLegacy = "2025-11-25"

// Modern is the first version of the modern era.
const Modern = "2026-07-28"

// ErrUnknownVersion is returned for a version that has no schema and is
// not of the legacy era.
var ErrUnknownVersion = errors.New("no MCP schema for this protocol version")

// baseURL is where the embedded documents live for the compiler; nothing
// is ever fetched from it.
const baseURL = "https://schema.mcpconform.invalid/"

// Schema is the compiled MCP JSON Schema of one protocol version.
type Schema struct {
	version string
	url     string // the schema document's URL, for keyword locations

	once sync.Once
	err  error
	// defs are every definition of the document, compiled.
	defs map[string]*jsonschema.Schema
	// targets maps a message shape to the definition it must match.
	targets targets
	// wrappers are the compiled envelope-plus-definition schemas, by key.
	wrappers map[string]*jsonschema.Schema
}

var schemas = func() map[string]*Schema {
	m := map[string]*Schema{}
	for _, v := range Versions {
		m[v] = &Schema{version: v, url: baseURL + v + "/schema.json"}
	}
	return m
}()

var isDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// For returns the schema of version. A version of the legacy era without a
// schema of its own (a date before 2026-07-28, such as 2024-11-05) gets the
// newest legacy one, LatestLegacy; Version says which was chosen. Anything
// else is ErrUnknownVersion. The schema is compiled on first use, once.
func For(version string) (*Schema, error) {
	s, ok := schemas[version]
	if !ok {
		if !isDate.MatchString(version) || version >= Modern {
			return nil, fmt.Errorf("%w: %q (schemas: %s)", ErrUnknownVersion, version, strings.Join(Versions, ", "))
		}
		s = schemas[LatestLegacy]
	}
	s.once.Do(s.compile)
	if s.err != nil {
		return nil, s.err
	}
	return s, nil
}

// Version is the protocol version of the schema.
func (s *Schema) Version() string { return s.version }

// Definitions lists the names of the schema's definitions, sorted.
func (s *Schema) Definitions() []string {
	names := make([]string, 0, len(s.defs))
	for n := range s.defs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// defsKey is where the document keeps its definitions: draft-07 documents
// use definitions, 2020-12 ones $defs.
func defsKey(doc map[string]any) string {
	if _, ok := doc["$defs"]; ok {
		return "$defs"
	}
	return "definitions"
}

// compile loads the document, compiles every definition and the wrappers of
// every message shape.
func (s *Schema) compile() {
	raw, err := files.ReadFile("schema/" + s.version + "/schema.json")
	if err != nil {
		s.err = fmt.Errorf("schema %s: %w", s.version, err)
		return
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		s.err = fmt.Errorf("schema %s: %w", s.version, err)
		return
	}
	root, _ := doc.(map[string]any)
	key := defsKey(root)
	defs, _ := root[key].(map[string]any)
	c := newCompiler()
	if err := c.AddResource(s.url, doc); err != nil {
		s.err = fmt.Errorf("schema %s: %w", s.version, err)
		return
	}
	s.defs = make(map[string]*jsonschema.Schema, len(defs))
	for name := range defs {
		sch, err := c.Compile(s.url + "#/" + key + "/" + name)
		if err != nil {
			s.err = fmt.Errorf("schema %s, definition %s: %w", s.version, name, err)
			return
		}
		s.defs[name] = sch
	}
	s.targets = findTargets(defs)
	s.wrappers = map[string]*jsonschema.Schema{}
	for wkey, w := range s.targets.wrappers(root["$schema"], s.url+"#/"+key+"/") {
		url := baseURL + s.version + "/message/" + wkey
		if err := c.AddResource(url, w); err != nil {
			s.err = fmt.Errorf("schema %s, message %s: %w", s.version, wkey, err)
			return
		}
		sch, err := c.Compile(url)
		if err != nil {
			s.err = fmt.Errorf("schema %s, message %s: %w", s.version, wkey, err)
			return
		}
		s.wrappers[wkey] = sch
	}
}

// annotationFormats are the formats the schemas use; each is an annotation
// (never asserted), as 2020-12 makes every format by default.
var annotationFormats = []string{"uri", "uri-template", "byte"}

func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.UseLoader(noFetch{})
	for _, name := range annotationFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
	}
	return c
}

// noFetch refuses every URL that is not embedded (JR-57): the schemas
// reference only themselves.
type noFetch struct{}

func (noFetch) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: not embedded, and mcpconform never fetches schemas", url)
}
