// Package workflows reads the repository's GitHub Actions files: the
// composite action (action.yml) and the workflows under .github/workflows. It
// turns the composite action into a workflow that actionlint can lint, since
// actionlint lints workflows only, and its tests hold the action, the
// reusable workflow and the README's examples to one list of inputs.
package workflows

import (
	"fmt"
	"sort"

	"go.yaml.in/yaml/v3"
)

// Action is the part of a composite action's metadata the checks read.
type Action struct {
	Name        string                  `yaml:"name"`
	Description string                  `yaml:"description"`
	Inputs      map[string]ActionInput  `yaml:"inputs"`
	Outputs     map[string]ActionOutput `yaml:"outputs"`
	Runs        struct {
		Using string      `yaml:"using"`
		Steps []yaml.Node `yaml:"steps"`
	} `yaml:"runs"`
}

// ActionInput is one input of an action.
type ActionInput struct {
	Description string  `yaml:"description"`
	Required    bool    `yaml:"required"`
	Default     *string `yaml:"default"`
}

// ActionOutput is one output of an action.
type ActionOutput struct {
	Description string `yaml:"description"`
	Value       string `yaml:"value"`
}

// Step is the part of a step the checks read.
type Step struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

// ParseAction reads a composite action's metadata.
func ParseAction(data []byte) (*Action, error) {
	var a Action
	if err := yaml.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("action metadata: %w", err)
	}
	return &a, nil
}

// Steps decodes the action's steps.
func (a *Action) Steps() ([]Step, error) {
	steps := make([]Step, len(a.Runs.Steps))
	for i := range a.Runs.Steps {
		if err := a.Runs.Steps[i].Decode(&steps[i]); err != nil {
			return nil, fmt.Errorf("action step %d: %w", i+1, err)
		}
	}
	return steps, nil
}

// InputNames lists the action's inputs, sorted.
func (a *Action) InputNames() []string {
	names := make([]string, 0, len(a.Inputs))
	for n := range a.Inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// AsWorkflow returns a workflow whose one job runs the composite action's
// steps unchanged, with the action's inputs as workflow_call inputs, so that
// actionlint checks the action's expressions, contexts and scripts
// (shellcheck) as it checks a workflow's. Only github.action_path, which a
// workflow's github context also has, needs nothing of its own.
func (a *Action) AsWorkflow() ([]byte, error) {
	if a.Runs.Using != "composite" {
		return nil, fmt.Errorf("action metadata: runs.using is %q, want composite", a.Runs.Using)
	}
	inputs := map[string]any{}
	for name, in := range a.Inputs {
		spec := map[string]any{"type": "string", "required": in.Required}
		if in.Description != "" {
			spec["description"] = in.Description
		}
		if in.Default != nil {
			spec["default"] = *in.Default
		}
		inputs[name] = spec
	}
	steps := make([]any, len(a.Runs.Steps))
	for i := range a.Runs.Steps {
		steps[i] = &a.Runs.Steps[i]
	}
	wf := map[string]any{
		"name": "action " + a.Name,
		"on":   map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"jobs": map[string]any{"action": map[string]any{
			"runs-on": "ubuntu-latest",
			"steps":   steps,
		}},
	}
	out, err := yaml.Marshal(wf)
	if err != nil {
		return nil, fmt.Errorf("action as a workflow: %w", err)
	}
	return out, nil
}
