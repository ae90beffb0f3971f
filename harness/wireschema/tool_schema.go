package wireschema

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrOutsideDocument is why a tool's schema did not compile when it refers
// to a document other than itself (a $ref or $schema URL that is not
// built in): such a schema is never fetched (JR-57, SEP-2106), and cannot
// be judged.
var ErrOutsideDocument = errors.New("refers to a document outside the schema, which mcpconform never fetches")

// ErrUnsupportedDialect is why a tool's schema did not compile when its
// $schema names a dialect the validator does not know (JR-56): it wraps
// ErrOutsideDocument too, as that dialect's meta-schema is a document
// outside the schema.
var ErrUnsupportedDialect = errors.New("declares a $schema dialect the validator does not support (it supports 2020-12, the default, 2019-09, draft-07, draft-06 and draft-04)")

// toolSchemaURL is where a tool's schema is placed for compiling; nothing
// is ever loaded from it.
const toolSchemaURL = baseURL + "tool-schema.json"

// ToolSchema is a JSON Schema a tool declares, its inputSchema or its
// outputSchema, compiled: the draft its $schema names, else JSON Schema
// 2020-12, MCP's default from 2025-11-25 on (TL-03, TL-12).
type ToolSchema struct{ s *jsonschema.Schema }

// CompileToolSchema compiles raw. It fails when raw is not a valid JSON
// Schema of its draft (the draft's meta-schema rejects it), and with
// ErrOutsideDocument when it refers to another document.
func CompileToolSchema(raw []byte) (*ToolSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	c := newCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(toolSchemaURL, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(toolSchemaURL)
	var load *jsonschema.LoadURLError
	if errors.As(err, &load) && load.URL == dialect(doc) {
		return nil, fmt.Errorf("%w (%w): %s", ErrUnsupportedDialect, ErrOutsideDocument, load.URL)
	}
	if errors.As(err, &load) {
		return nil, fmt.Errorf("%w: %s", ErrOutsideDocument, load.URL)
	}
	var invalid *jsonschema.SchemaValidationError
	if errors.As(err, &invalid) {
		if ve, ok := invalid.Err.(*jsonschema.ValidationError); ok {
			return nil, fmt.Errorf("its meta-schema refuses it: %s", reason(ve))
		}
	}
	if err != nil {
		return nil, err
	}
	return &ToolSchema{s}, nil
}

// Validate says how value breaks the schema, "" when it conforms: the JSON
// pointer into value and a one-line reason.
func (t *ToolSchema) Validate(value []byte) string {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return "not JSON: " + err.Error()
	}
	err = t.s.Validate(doc)
	if err == nil {
		return ""
	}
	if ve, ok := err.(*jsonschema.ValidationError); ok {
		return reason(ve)
	}
	return err.Error()
}

// reason is a validation failure in one line: where in the value, and why.
func reason(ve *jsonschema.ValidationError) string {
	leaf := deepest(ve)
	at := pointer(leaf.InstanceLocation)
	if at == "" {
		at = "the value"
	}
	return at + ": " + leaf.ErrorKind.LocalizedString(printer)
}

// dialect is the URL of the dialect doc's $schema names, without its empty
// fragment; "" when it names none.
func dialect(doc any) string {
	obj, _ := doc.(map[string]any)
	url, _ := obj["$schema"].(string)
	return strings.TrimSuffix(url, "#")
}
