package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/harness/report"
	"github.com/mcpconform/mcpconform/suites/run"
)

// fixtureRoles are the behaviours a fixtures file may map to a tool.
var fixtureRoles = []string{"elicitation", "failing", "logging", "progress", "roots", "sampling", "slow"}

// loadFixturesFile reads a fixtures file (each role names a tool and its
// arguments; an empty path means no file) with its list of unsafe tools
// (`unsafe: [NAME, …]`, tools that write or delete: the fuzzer never calls
// them).
func loadFixturesFile(path string) (map[string]run.Fixture, []string, error) {
	if path == "" {
		return nil, nil, nil
	}
	b, err := report.ReadInput("--fixtures", path, report.MaxFixturesFile)
	if err != nil {
		return nil, nil, err
	}
	var nodes map[string]yaml.Node
	if err := yaml.Unmarshal(b, &nodes); err != nil {
		return nil, nil, fmt.Errorf("--fixtures %s: %v; the file maps roles to {tool: NAME, arguments: {…}}", path, err)
	}
	var unsafe []string
	if n, ok := nodes["unsafe"]; ok {
		if err := n.Decode(&unsafe); err != nil {
			return nil, nil, fmt.Errorf("--fixtures %s: unsafe: %v; write unsafe: [TOOL, …]", path, err)
		}
		delete(nodes, "unsafe")
		b, _ = yaml.Marshal(nodes)
	}
	f, err := decodeFixtures(path, b)
	return f, unsafe, err
}

// decodeFixtures reads the role mappings strictly.
func decodeFixtures(path string, b []byte) (map[string]run.Fixture, error) {
	var f map[string]run.Fixture
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("--fixtures %s: %v; the file maps roles to {tool: NAME, arguments: {…}}", path, err)
	}
	roles := make([]string, 0, len(f))
	for role := range f {
		roles = append(roles, role)
	}
	sort.Strings(roles)
	for _, role := range roles {
		if !slices.Contains(fixtureRoles, role) {
			return nil, fmt.Errorf("--fixtures %s: unknown role %q; roles: %s", path, role, strings.Join(fixtureRoles, ", "))
		}
		if f[role].Tool == "" {
			return nil, fmt.Errorf("--fixtures %s: role %q names no tool; write %s: {tool: NAME, arguments: {}}", path, role, role)
		}
	}
	return f, nil
}
