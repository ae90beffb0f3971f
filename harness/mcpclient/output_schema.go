package mcpclient

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
	"github.com/mcpconform/mcpconform/harness/wireschema"
)

// checkStructured validates the structuredContent of tool name's result
// against the outputSchema the tool was listed with (TL-12): JSON Schema
// 2020-12 unless its $schema names another dialect the validator knows
// (JR-55). A schema of a dialect it does not know (JR-56), or one whose
// $ref leads outside itself, which is never fetched (JR-57), fails the
// call saying so, as does a value that breaks the schema. A result with
// isError, or without structuredContent, and a tool listed without an
// outputSchema are not validated.
func (s *Session) checkStructured(name string, res *mcp.CallToolResult) error {
	s.toolsMu.Lock()
	tool, ok := s.tools[name]
	s.toolsMu.Unlock()
	if !ok || tool.OutputSchema == nil || res.IsError || res.StructuredContent == nil || s.opts.Mutant == mutant.OutputUnvalidated {
		return nil
	}
	op := "tools/call " + name
	schema, err := wireschema.CompileToolSchema(s.mutantSchema(tool.OutputSchema))
	switch {
	case errors.Is(err, wireschema.ErrUnsupportedDialect) && s.opts.Mutant == mutant.DialectIgnored:
		schema, err = wireschema.CompileToolSchema(withoutDialect(tool.OutputSchema))
	case errors.Is(err, wireschema.ErrUnsupportedDialect):
		return failure.New(failure.ErrProtocol, op, fmt.Sprintf("the tool's outputSchema %v, so its structuredContent cannot be validated (JR-56)", err))
	case errors.Is(err, wireschema.ErrOutsideDocument) && s.opts.Mutant == mutant.RemoteRefUnchecked:
		return nil
	case errors.Is(err, wireschema.ErrOutsideDocument):
		return failure.New(failure.ErrProtocol, op, fmt.Sprintf("the tool's outputSchema %v, so its structuredContent cannot be validated (JR-57)", err))
	}
	if err != nil {
		return failure.New(failure.ErrProtocol, op, fmt.Sprintf("the tool's outputSchema is not a JSON Schema (%v), so its structuredContent cannot be validated", err))
	}
	if why := schema.Validate(res.StructuredContent); why != "" {
		return failure.New(failure.ErrProtocol, op, fmt.Sprintf("the structuredContent does not conform to the tool's outputSchema (TL-12): %s", why))
	}
	return nil
}

// withoutDialect is schema raw without its $schema (mutant DialectIgnored).
func withoutDialect(raw json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	delete(obj, "$schema")
	b, err := json.Marshal(obj)
	if err != nil {
		return raw
	}
	return b
}
