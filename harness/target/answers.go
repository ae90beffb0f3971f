package target

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Environment variables of the adapter contract that say how the client
// answers what a server asks of it (sampling, elicitation, roots). Each is
// optional; set, the adapter's client declares the capability (sampling,
// elicitation with its form and URL modes, roots) and answers with the
// fixed value; unset, it does what it does by default. An adapter whose
// library cannot give an answer leaves the capability undeclared (the check
// is then UNIMPLEMENTED) or exits 127.
const (
	// EnvSampling is the answer to sampling/createMessage: the JSON of the
	// result to return (role, content, model, stopReason), or the word
	// "reject": the user refuses, which the client reports as error -1.
	EnvSampling = "MCPCONFORM_SAMPLING"
	// EnvElicitation is the user's action on every elicitation/create:
	// "accept" (a form is submitted as the client presents it, its
	// schema's defaults filled in; a URL is consented to), "decline" or
	// "cancel".
	EnvElicitation = "MCPCONFORM_ELICITATION"
	// EnvRoots is the JSON array of the roots the client shares
	// ([{"uri":"file:///…","name":"…"}]), its answer to roots/list.
	EnvRoots = "MCPCONFORM_ROOTS"
	// EnvSamplingTools, "1" beside EnvSampling, asks the client to declare
	// sampling.tools too (tool-enabled sampling, 2025-11-25 on) and to
	// answer tool-enabled requests with the same result; unset, it
	// declares sampling without tools.
	EnvSamplingTools = "MCPCONFORM_SAMPLING_TOOLS"
)

// SamplingReject is the value of EnvSampling for a user who refuses.
const SamplingReject = "reject"

// Elicitation actions (EnvElicitation), as the result's action says them.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// Answers are the fixed answers a check asks of the client; the zero value
// asks for none.
type Answers struct {
	// Sampling is the result JSON, or SamplingReject; empty: not asked.
	Sampling string
	// SamplingTools asks the client to declare sampling.tools beside
	// Sampling.
	SamplingTools bool
	// Elicitation is ElicitAccept, ElicitDecline or ElicitCancel; empty: not asked.
	Elicitation string
	// Roots are the roots to share; nil: not asked.
	Roots []Root
}

// Root is one root a client shares (roots/list).
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ReadAnswers reads the answer variables through getenv (os.Getenv), each
// checked: a sampling result that is not a JSON object, an action that is
// not one of the three, roots that are not a JSON array of objects with a
// uri.
func ReadAnswers(getenv func(string) string) (Answers, error) {
	a := Answers{Sampling: getenv(EnvSampling), Elicitation: getenv(EnvElicitation)}
	if a.Sampling != "" && a.Sampling != SamplingReject {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(a.Sampling), &obj); err != nil || obj == nil {
			return a, fmt.Errorf("%s must be the JSON object of a sampling result or %q, got %q", EnvSampling, SamplingReject, a.Sampling)
		}
	}
	switch tools := getenv(EnvSamplingTools); {
	case tools == "1" && a.Sampling == "":
		return a, fmt.Errorf("%s=1 needs %s, the answer to give", EnvSamplingTools, EnvSampling)
	case tools == "1":
		a.SamplingTools = true
	case tools != "":
		return a, fmt.Errorf("%s must be 1 or unset, got %q", EnvSamplingTools, tools)
	}
	switch a.Elicitation {
	case "", ElicitAccept, ElicitDecline, ElicitCancel:
	default:
		return a, fmt.Errorf("%s must be %s, got %q", EnvElicitation, strings.Join([]string{ElicitAccept, ElicitDecline, ElicitCancel}, ", "), a.Elicitation)
	}
	if raw := getenv(EnvRoots); raw != "" {
		if err := json.Unmarshal([]byte(raw), &a.Roots); err != nil || a.Roots == nil {
			return a, fmt.Errorf(`%s must be a JSON array of roots ([{"uri":"file:///…","name":"…"}]), got %q`, EnvRoots, raw)
		}
		for i, r := range a.Roots {
			if r.URI == "" {
				return a, fmt.Errorf("%s: root %d has no uri", EnvRoots, i)
			}
		}
	}
	return a, nil
}

// environ is the variables that ask for a's answers.
func (a Answers) environ() []string {
	var env []string
	if a.Sampling != "" {
		env = append(env, EnvSampling+"="+a.Sampling)
	}
	if a.SamplingTools {
		env = append(env, EnvSamplingTools+"=1")
	}
	if a.Elicitation != "" {
		env = append(env, EnvElicitation+"="+a.Elicitation)
	}
	if a.Roots != nil {
		b, _ := json.Marshal(a.Roots) // strings only: cannot fail
		env = append(env, EnvRoots+"="+string(b))
	}
	return env
}
