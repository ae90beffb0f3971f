package mcpclient

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// How the reference client meets what 2025-11-25 added to a server's
// requests: tool-enabled sampling (SM-07, SM-10) and the completion of
// elicitations (EL-13).

// samplingRefusal is why the client refuses sampling/createMessage params:
// tools or toolChoice though it did not declare sampling.tools (SM-07), or
// messages whose tool results are missing or mixed with other content
// (SM-10); "" when it answers them.
func (s *Session) samplingRefusal(params json.RawMessage) string {
	var p struct {
		Tools      json.RawMessage `json:"tools"`
		ToolChoice json.RawMessage `json:"toolChoice"`
		Messages   []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(params, &p) // unreadable: hasMessages has refused it
	if (p.Tools != nil || p.ToolChoice != nil) && !s.opts.Answers.SamplingTools && s.opts.Mutant != mutant.SamplingToolsUndeclaredAnswered {
		return "sampling/createMessage has tools or toolChoice, but this client did not declare sampling.tools (SM-07)"
	}
	if s.opts.Mutant == mutant.SamplingToolResultsUnchecked {
		return ""
	}
	for i, m := range p.Messages {
		uses, results, others := contentKinds(m.Content)
		if len(results) > 0 && len(others) > 0 {
			return fmt.Sprintf("message %d mixes tool_result blocks with %s (SM-09)", i, strings.Join(others, ", "))
		}
		if m.Role != "assistant" || len(uses) == 0 {
			continue
		}
		var answered []string
		if i+1 < len(p.Messages) && p.Messages[i+1].Role == "user" {
			_, answered, _ = contentKinds(p.Messages[i+1].Content)
		}
		for _, id := range uses {
			if !slices.Contains(answered, id) {
				return fmt.Sprintf("the tool_use %q of message %d has no tool_result in the user message after it (SM-09)", id, i)
			}
		}
	}
	return ""
}

// contentKinds sorts the blocks of a sampling message's content (one block
// or an array): the ids of its tool_use blocks, the toolUseIds of its
// tool_result blocks, and the types of the others.
func contentKinds(raw json.RawMessage) (uses, results, others []string) {
	type block struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		ToolUseID string `json:"toolUseId"`
	}
	var blocks []block
	if json.Unmarshal(raw, &blocks) != nil {
		var one block
		_ = json.Unmarshal(raw, &one) // unreadable: a block of no type
		blocks = []block{one}
	}
	for _, b := range blocks {
		switch b.Type {
		case "tool_use":
			uses = append(uses, b.ID)
		case "tool_result":
			results = append(results, b.ToolUseID)
		default:
			others = append(others, b.Type)
		}
	}
	return uses, results, others
}

// completionFatal is mutant ElicitationCompleteUnknownFatal: on a
// notifications/elicitation/complete the session ends (the reference asks
// nothing out of band, so every elicitation id is unknown to it and the
// notification is ignored); it reports whether it acted.
func (s *Session) completionFatal(method string) bool {
	if method != "notifications/elicitation/complete" || s.opts.Mutant != mutant.ElicitationCompleteUnknownFatal {
		return false
	}
	_ = s.t.Close() // dispatch learns that the session ended from Done
	return true
}
