package mcpclient

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpconform/mcpconform/harness/mutant"
)

// draft7 is the dialect mutant SchemaDraft7Default takes for the default.
const draft7 = "http://json-schema.org/draft-07/schema#"

// mutantSchema is the outputSchema raw as the mutant in force reads it:
// SchemaDraft7Default gives one without $schema draft-07's; under
// RemoteRefFetched the http URLs its $refs name are fetched first. The
// reference reads raw as it is.
func (s *Session) mutantSchema(raw json.RawMessage) json.RawMessage {
	var doc any
	if s.opts.Mutant == "" || json.Unmarshal(raw, &doc) != nil {
		return raw
	}
	switch s.opts.Mutant {
	case mutant.SchemaDraft7Default:
		obj, ok := doc.(map[string]any)
		if _, declared := obj["$schema"]; ok && !declared {
			obj["$schema"] = draft7
			if b, err := json.Marshal(obj); err == nil {
				return b
			}
		}
	case mutant.RemoteRefFetched:
		fetcher := http.Client{Timeout: s.opts.CallTimeout}
		for _, url := range remoteRefs(doc) {
			if resp, err := fetcher.Get(url); err == nil {
				_ = resp.Body.Close()
			}
		}
	}
	return raw
}

// remoteRefs are the http and https URLs the $refs of schema doc name.
func remoteRefs(doc any) []string {
	var urls []string
	switch v := doc.(type) {
	case map[string]any:
		for k, sub := range v {
			if ref, ok := sub.(string); ok && k == "$ref" && (strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://")) {
				urls = append(urls, ref)
			}
			urls = append(urls, remoteRefs(sub)...)
		}
	case []any:
		for _, sub := range v {
			urls = append(urls, remoteRefs(sub)...)
		}
	}
	return urls
}
