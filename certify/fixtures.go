package certify

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
	"github.com/mcpconform/mcpconform/harness/toolpolicy"
	"github.com/mcpconform/mcpconform/suites/run"
)

// fixtureRoles are the behaviours a fixtures file may map to a tool.
var fixtureRoles = []string{"elicitation", "elicitation-url", "failing", "input-required", "logging", "progress", "roots", "sampling", "slow"}

// FixturesFile is what a fixtures file says: the tool (and arguments)
// that shows each role, the tools never to call (`unsafe: [NAME, …]`) and
// which tools checks may call (`call_tools: all|read-only|none`, "" when
// it does not say), and whether the server is a protected resource
// (`protected: true`: the auth checks fail where it lets a request
// without a token through, instead of being N/A).
type FixturesFile struct {
	Roles     map[string]run.Fixture
	Unsafe    []string
	CallTools toolpolicy.Mode
	Protected bool
}

// LoadFixturesFile reads a fixtures file; an empty path means no file.
func LoadFixturesFile(path string) (FixturesFile, error) {
	var ff FixturesFile
	if path == "" {
		return ff, nil
	}
	b, err := report.ReadInput("--fixtures", path, report.MaxFixturesFile)
	if err != nil {
		return ff, err
	}
	var nodes map[string]yaml.Node
	if err := yaml.Unmarshal(b, &nodes); err != nil {
		return ff, fmt.Errorf("--fixtures %s: %v; the file maps roles to {tool: NAME, arguments: {…}}", path, err)
	}
	n, unsafe := nodes["unsafe"]
	if unsafe {
		if err := n.Decode(&ff.Unsafe); err != nil {
			return ff, fmt.Errorf("--fixtures %s: unsafe: %v; write unsafe: [TOOL, …]", path, err)
		}
	}
	n, callTools := nodes["call_tools"]
	if callTools {
		var mode string
		if err = n.Decode(&mode); err == nil {
			ff.CallTools, err = toolpolicy.ParseMode("call_tools:", mode)
		}
		if err != nil {
			return ff, fmt.Errorf("--fixtures %s: %v", path, err)
		}
	}
	n, protected := nodes["protected"]
	if protected {
		if err := n.Decode(&ff.Protected); err != nil {
			return ff, fmt.Errorf("--fixtures %s: protected: %v; write protected: true or false", path, err)
		}
	}
	if unsafe || callTools || protected {
		delete(nodes, "unsafe")
		delete(nodes, "call_tools")
		delete(nodes, "protected")
		b, _ = yaml.Marshal(nodes)
	}
	ff.Roles, err = decodeFixtures(path, b)
	return ff, err
}

// CallToolsFlag is --call-tools. set says it was given: the flag wins over
// the fixtures file's call_tools.
type CallToolsFlag struct {
	mode toolpolicy.Mode
	set  bool
}

// CallToolsUsage is the help of --call-tools, the same on every command.
const CallToolsUsage = "which tools may be called (`MODE`): read-only (the default: those the server marks readOnlyHint: true and not openWorldHint: true, and those --fixtures names), all, or none; never a --fixtures file's unsafe: tools; without this flag, the file's call_tools: gives the mode"

func (f *CallToolsFlag) String() string { return string(f.mode) }

func (f *CallToolsFlag) Set(v string) error {
	m, err := toolpolicy.ParseMode("--call-tools", v)
	f.mode, f.set = m, err == nil
	return err
}

// over is the run's mode: the flag's when given, else the fixtures file's
// (zero, read-only, when it does not say).
func (f CallToolsFlag) Over(file FixturesFile) toolpolicy.Mode {
	if f.set {
		return f.mode
	}
	return file.CallTools
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
