// Package toolpolicy decides which of a server's tools mcpconform may call
// (every check and the fuzzer ask it), and records what a run called and
// what it left alone, for the reports. By default a tool is called only when
// the server marks it read-only (readOnlyHint: true) and not open-world
// (openWorldHint: true), or when the fixtures file names it; --call-tools
// (or the fixtures file's call_tools) widens that to every tool or narrows
// it to none, and a tool the fixtures file lists as unsafe is never called.
package toolpolicy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mcp"
)

// Mode is how far the policy lets checks call tools: --call-tools.
type Mode string

// The modes of --call-tools.
const (
	// ReadOnly calls the tools the server marks readOnlyHint: true and not
	// openWorldHint: true, and those the fixtures file names (the default).
	ReadOnly Mode = "read-only"
	// All calls every tool but the unsafe ones.
	All Mode = "all"
	// None calls no tool at all.
	None Mode = "none"
)

// Modes lists the modes in the order help text names them.
var Modes = []Mode{All, ReadOnly, None}

// ParseMode reads a --call-tools value; what names where it was given
// (--call-tools, or the fixtures file's call_tools) for the error.
func ParseMode(what, s string) (Mode, error) {
	if m := Mode(s); slices.Contains(Modes, m) {
		return m, nil
	}
	return "", fmt.Errorf("%s %q: use all, read-only (the default) or none", what, s)
}

// Why a tool is left alone (LeftAlone.Why).
const (
	WhyUnsafe      = "listed under unsafe: in the fixtures file"
	WhyNone        = "call-tools is none"
	WhyNotReadOnly = "not marked readOnlyHint: true"
	WhyOpenWorld   = "marked openWorldHint: true"
)

// Policy decides which tools may be called. Its zero value is the default:
// read-only tools only.
type Policy struct {
	Mode Mode // zero: ReadOnly
	// Named are the tools the fixtures file names: called under ReadOnly
	// whatever their annotations.
	Named []string
	// Unsafe are never called, whatever the mode.
	Unsafe []string
}

// Allows says whether t may be called and, when not, why (one of the Why
// constants).
func (p Policy) Allows(t mcp.Tool) (bool, string) {
	switch {
	case slices.Contains(p.Unsafe, t.Name):
		return false, WhyUnsafe
	case p.Mode == None:
		return false, WhyNone
	case p.Mode == All || slices.Contains(p.Named, t.Name):
		return true, ""
	}
	a := t.Annotations
	switch {
	case a == nil || a.ReadOnlyHint == nil || !*a.ReadOnlyHint:
		return false, WhyNotReadOnly
	case a.OpenWorldHint != nil && *a.OpenWorldHint:
		return false, WhyOpenWorld
	}
	return true, ""
}

// wayOut is how to let a tool left alone for why be called.
func wayOut(why string) string {
	switch why {
	case WhyUnsafe:
		return "allow by taking the tool off that list"
	case WhyNone:
		return "allow with --call-tools read-only or all"
	}
	return "allow with --call-tools all, or name the tool in --fixtures"
}

// LeftAlone is a tool no check called, and why.
type LeftAlone struct {
	Name string `json:"name"`
	Why  string `json:"why"`
}

// Explain says which tools were left alone, grouped by why, and how to let
// each group be called: what a check that needed one of them says.
func Explain(left []LeftAlone) string { return "left alone: " + Grouped(left) }

// Grouped is Explain without its "left alone: ": the tools grouped by why,
// each group with its way out, "A, B (why; way out); C (…)".
func Grouped(left []LeftAlone) string {
	var whys []string
	names := map[string][]string{}
	for _, l := range left {
		if _, ok := names[l.Why]; !ok {
			whys = append(whys, l.Why)
		}
		names[l.Why] = append(names[l.Why], l.Name)
	}
	parts := make([]string, len(whys))
	for i, why := range whys {
		parts[i] = fmt.Sprintf("%s (%s; %s)", strings.Join(names[why], ", "), why, wayOut(why))
	}
	return strings.Join(parts, "; ")
}
