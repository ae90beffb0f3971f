package workflows

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// root is the repository's root, two levels above this package.
const root = "../.."

// publicInputs are the inputs issue 11 names: a caller's workflow uses them.
var publicInputs = []string{"role", "command", "url", "setup", "profile", "baseline", "label-filter", "version", "go-version"}

func readFile(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func action(t *testing.T) (*Action, []Step) {
	t.Helper()
	a, err := ParseAction(readFile(t, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := a.Steps()
	if err != nil {
		t.Fatal(err)
	}
	return a, steps
}

// workflowCall is the part of a reusable workflow the checks read.
type workflowCall struct {
	On struct {
		WorkflowCall struct {
			Inputs map[string]struct {
				Type     string `yaml:"type"`
				Required bool   `yaml:"required"`
			} `yaml:"inputs"`
		} `yaml:"workflow_call"`
	} `yaml:"on"`
	Jobs map[string]struct {
		Steps []Step `yaml:"steps"`
	} `yaml:"jobs"`
}

func TestActionMetadata(t *testing.T) {
	a, steps := action(t)
	if a.Name == "" || a.Description == "" {
		t.Errorf("action.yml: name %q, description %q: both are required", a.Name, a.Description)
	}
	if a.Runs.Using != "composite" {
		t.Errorf("action.yml: runs.using %q, want composite", a.Runs.Using)
	}
	for _, name := range publicInputs {
		if _, ok := a.Inputs[name]; !ok {
			t.Errorf("action.yml: no input %q (a public name of issue 11)", name)
		}
	}
	for name, in := range a.Inputs {
		if in.Description == "" {
			t.Errorf("action.yml: input %q has no description", name)
		}
	}
	if !a.Inputs["role"].Required {
		t.Error("action.yml: input role must be required")
	}
	for name, out := range a.Outputs {
		if out.Description == "" || out.Value == "" {
			t.Errorf("action.yml: output %q needs a description and a value", name)
		}
	}
	// Every inputs.NAME an expression reads is declared.
	text := string(readFile(t, "action.yml"))
	for _, m := range regexp.MustCompile(`inputs\.([A-Za-z0-9_-]+)`).FindAllStringSubmatch(text, -1) {
		if _, ok := a.Inputs[m[1]]; !ok {
			t.Errorf("action.yml reads inputs.%s, which it does not declare", m[1])
		}
	}
	for _, s := range steps {
		switch {
		case s.Run != "" && s.Uses != "":
			t.Errorf("action.yml: step %q has both run and uses", s.Name)
		case s.Run != "" && s.Shell == "":
			t.Errorf("action.yml: step %q runs a script without shell: (a composite action's run steps need one)", s.Name)
		case s.Run == "" && s.Uses == "":
			t.Errorf("action.yml: step %q has neither run nor uses", s.Name)
		}
		// An expression inside a script is pasted into it before bash reads it:
		// an input holding "; rm -rf ~" would run. Inputs go through env.
		if strings.Contains(s.Run, "${{") {
			t.Errorf("action.yml: step %q has an expression inside its script; pass the value through env:", s.Name)
		}
		if s.Uses != "" && !regexp.MustCompile(`^[\w.-]+/[\w.-]+@v\d+$`).MatchString(s.Uses) {
			t.Errorf("action.yml: step %q uses %q; pin a third-party action to its major version (owner/name@vN)", s.Name, s.Uses)
		}
	}
}

func TestCertifyWorkflowPassesEveryInput(t *testing.T) {
	a, _ := action(t)
	var wf workflowCall
	if err := yaml.Unmarshal(readFile(t, ".github/workflows/certify.yml"), &wf); err != nil {
		t.Fatal(err)
	}
	inputs := wf.On.WorkflowCall.Inputs
	for _, name := range publicInputs {
		if _, ok := inputs[name]; !ok {
			t.Errorf("certify.yml: no workflow_call input %q (a public name of issue 11)", name)
		}
	}
	if !inputs["role"].Required {
		t.Error("certify.yml: input role must be required")
	}
	var uses *Step
	for _, job := range wf.Jobs {
		for i, s := range job.Steps {
			if s.Uses == "./.mcpconform-action" {
				uses = &job.Steps[i]
			}
		}
	}
	if uses == nil {
		t.Fatal("certify.yml: no step uses ./.mcpconform-action")
	}
	for name := range uses.With {
		if _, ok := a.Inputs[name]; !ok {
			t.Errorf("certify.yml gives the action input %q, which action.yml does not declare", name)
		}
	}
	for name := range inputs {
		if _, ok := a.Inputs[name]; !ok {
			continue // the job's own: runs-on, timeout-minutes
		}
		if want := "${{ inputs." + name + " }}"; uses.With[name] != want {
			t.Errorf("certify.yml: the action's %s is %q, want %q", name, uses.With[name], want)
		}
	}
}

// readmeExamples returns the YAML blocks of the README's "Use it in CI"
// section: each one a complete workflow.
func readmeExamples(t *testing.T) []string {
	t.Helper()
	readme := string(readFile(t, "docs/ci.md"))
	start := strings.Index(readme, "\n## Use it in CI\n")
	if start < 0 {
		t.Fatal(`docs/ci.md: no "## Use it in CI" section`)
	}
	section := readme[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(section, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

func TestReadmeExamples(t *testing.T) {
	a, _ := action(t)
	var certify workflowCall
	if err := yaml.Unmarshal(readFile(t, ".github/workflows/certify.yml"), &certify); err != nil {
		t.Fatal(err)
	}
	blocks := readmeExamples(t)
	var sawAction, sawWorkflow, sawClient, sawHTTP bool
	for i, block := range blocks {
		var wf struct {
			On   any `yaml:"on"`
			Jobs map[string]struct {
				Uses  string            `yaml:"uses"`
				With  map[string]string `yaml:"with"`
				Steps []Step            `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(block), &wf); err != nil {
			t.Errorf("README example %d: %v", i+1, err)
			continue
		}
		if wf.On == nil || len(wf.Jobs) == 0 {
			t.Errorf("README example %d is not a complete workflow (on: and jobs:)", i+1)
		}
		judge := func(kind, uses string, with map[string]string, declared func(string) bool) {
			// Pinned: one release tag after @ and in version (issue 24).
			_, ref, _ := strings.Cut(uses, "@")
			if !regexp.MustCompile(`^v\d+\.\d+\.\d+$`).MatchString(ref) || with["version"] != ref {
				t.Errorf("README example %d: %s at @%s with version %q; pin one release tag in both (@v0.4.0, version: v0.4.0)", i+1, kind, ref, with["version"])
			}
			if with["role"] != "server" && with["role"] != "client" {
				t.Errorf("README example %d: %s with role %q, want server or client", i+1, kind, with["role"])
			}
			for name := range with {
				if !declared(name) {
					t.Errorf("README example %d: %s has no input %q", i+1, kind, name)
				}
			}
			sawClient = sawClient || with["role"] == "client"
			sawHTTP = sawHTTP || with["url"] != ""
		}
		for _, job := range wf.Jobs {
			if strings.HasPrefix(job.Uses, "mcpconform/mcpconform/.github/workflows/certify.yml@") {
				sawWorkflow = true
				judge("certify.yml", job.Uses, job.With, func(n string) bool { _, ok := certify.On.WorkflowCall.Inputs[n]; return ok })
			}
			for _, s := range job.Steps {
				if strings.HasPrefix(s.Uses, "mcpconform/mcpconform@") {
					sawAction = true
					judge("the action", s.Uses, s.With, func(n string) bool { _, ok := a.Inputs[n]; return ok })
				}
			}
		}
	}
	if !sawAction || !sawWorkflow || !sawClient || !sawHTTP {
		t.Errorf("README examples: the action %v, certify.yml %v, a client %v, an HTTP server %v: want each", sawAction, sawWorkflow, sawClient, sawHTTP)
	}
}

// TestActionlint lints every workflow, the action and the README's examples
// with .ci/actionlint, which installs the pinned actionlint first.
func TestActionlint(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on PATH")
	}
	dir := t.TempDir()
	args := []string{filepath.Join(root, ".ci/actionlint")}
	for i, block := range readmeExamples(t) {
		f := filepath.Join(dir, "readme-example-"+string(rune('a'+i))+".yml")
		if err := os.WriteFile(f, []byte(block), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, f)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute) // the first run installs actionlint
	defer cancel()
	out, err := exec.CommandContext(ctx, "bash", args...).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		t.Skipf("actionlint could not be installed, so nothing was linted:\n%s", out)
	}
	if err != nil {
		t.Fatalf(".ci/actionlint: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// runStep runs the action's step with the given id (or name) as the runner
// does (bash -eo pipefail), with env as its environment, and returns what it
// wrote to $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY.
func runStep(t *testing.T, id string, env map[string]string) (outputs map[string]string, summary string, err error) {
	t.Helper()
	outputs, summary, _, err = runStepLog(t, actionStep(t, id), env)
	return outputs, summary, err
}

// actionStep returns the action's step with the given id or name.
func actionStep(t *testing.T, id string) Step {
	t.Helper()
	_, steps := action(t)
	i := slices.IndexFunc(steps, func(s Step) bool { return s.ID == id || s.Name == id })
	if i < 0 {
		t.Fatalf("action.yml: no step %q", id)
	}
	return steps[i]
}

// runStepLog runs one step's script as runStep does and returns its log
// (stdout and stderr) too.
func runStepLog(t *testing.T, step Step, env map[string]string) (outputs map[string]string, summary, log string, err error) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "step.sh")
	if err := os.WriteFile(script, []byte(step.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	out, sum := filepath.Join(dir, "output"), filepath.Join(dir, "summary")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GITHUB_OUTPUT="+out, "GITHUB_STEP_SUMMARY="+sum)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	name := cmp.Or(step.ID, step.Name)
	t.Logf("step %q:\n%s", name, buf.String())
	outputs = map[string]string{}
	data, _ := os.ReadFile(out)
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "="); ok {
			outputs[k] = v
		}
	}
	s, _ := os.ReadFile(sum)
	return outputs, string(s), buf.String(), err
}

// mcpconformBinary builds the command, with more go build flags if given,
// into a directory whose name has a space, so the command input's quoting is
// tested too.
func mcpconformBinary(t *testing.T, flags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "with space", "mcpconform")
	cmd := exec.Command("go", slices.Concat([]string{"build", "-o", bin}, flags, []string{"./cmd/mcpconform"})...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/mcpconform: %v\n%s", err, out)
	}
	return bin
}

func TestRunStep(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcpconform and certifies the reference server")
	}
	bin := mcpconformBinary(t)
	quoted := "'" + bin + "'"
	only := "--only server.ping.after-initialize --parallel 1"

	t.Run("server passes", func(t *testing.T) {
		reports := filepath.Join(t.TempDir(), "reports")
		out, _, err := runStep(t, "run", map[string]string{
			"MCPCONFORM": bin, "MCPCONFORM_ROLE": "server", "MCPCONFORM_PROFILE": "spec",
			"MCPCONFORM_COMMAND": quoted + " serve --transport stdio", "MCPCONFORM_ARGS": only,
			"MCPCONFORM_REPORTS": reports,
		})
		if err != nil || out["exit-code"] != "0" {
			t.Fatalf("step error %v, exit-code %q; want the step to succeed with exit-code 0", err, out["exit-code"])
		}
		if out["reports"] != reports {
			t.Errorf("reports output %q, want %q", out["reports"], reports)
		}
		for _, f := range []string{"junit.xml", "report.json", "report.md", "report.html"} {
			if st, err := os.Stat(filepath.Join(reports, f)); err != nil || st.Size() == 0 {
				t.Errorf("report %s not written: %v", f, err)
			}
		}
		_, summary, err := runStep(t, "Step summary", map[string]string{"MCPCONFORM_REPORT": filepath.Join(reports, "report.md"), "MCPCONFORM_STATUS": "0"})
		md, _ := os.ReadFile(filepath.Join(reports, "report.md"))
		if err != nil || summary != string(md) {
			t.Errorf("step summary (error %v):\n%s\nwant the Markdown report:\n%s", err, summary, md)
		}
	})

	t.Run("a failed check is exit-code 1 and a failed step", func(t *testing.T) {
		reports := filepath.Join(t.TempDir(), "reports")
		out, _, err := runStep(t, "run", map[string]string{
			"MCPCONFORM": bin, "MCPCONFORM_ROLE": "server",
			"MCPCONFORM_COMMAND": quoted + " serve --transport stdio --mutant ping-result-not-empty", "MCPCONFORM_ARGS": only,
			"MCPCONFORM_REPORTS": reports,
		})
		if err != nil || out["exit-code"] != "1" {
			t.Fatalf("step error %v, exit-code %q; want the run step to succeed with exit-code 1", err, out["exit-code"])
		}
		if _, err := os.Stat(filepath.Join(reports, "report.md")); err != nil {
			t.Errorf("no Markdown report for the summary: %v", err)
		}
		_, _, err = runStep(t, "Exit status", map[string]string{"MCPCONFORM_STATUS": "1"})
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("exit status step: %v, want exit status 1", err)
		}
	})

	for _, tc := range []struct{ name, role, command, url string }{
		{"client without an adapter", "client", "", ""},
		{"server without a target", "server", "", ""},
		{"client given a url", "client", quoted + " adapter", "http://127.0.0.1:1/mcp"},
		{"unknown role", "proxy", quoted + " serve", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runStep(t, "run", map[string]string{
				"MCPCONFORM": bin, "MCPCONFORM_ROLE": tc.role, "MCPCONFORM_COMMAND": tc.command,
				"MCPCONFORM_URL": tc.url, "MCPCONFORM_REPORTS": filepath.Join(t.TempDir(), "reports"),
			})
			if err != nil || out["exit-code"] != "2" {
				t.Errorf("step error %v, exit-code %q; want exit-code 2 (a usage error)", err, out["exit-code"])
			}
		})
	}
}
