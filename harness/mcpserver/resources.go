package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Resource is one resource of resources/list (RS-02).
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// ResourceTemplate is one RFC 6570 template of resources/templates/list
// (RS-02).
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// serverResources are the reference server's resources, named after the
// official conformance suite's fixtures.
var serverResources = []Resource{
	{"test://static-text", "Static Text Resource", "A static text resource for testing", "text/plain"},
	{"test://static-binary", "Static Binary Resource", "A static binary resource (image) for testing", "image/png"},
	{"test://watched-resource", "Watched Resource", "A text resource", "text/plain"},
}

// dataTemplate is the one resource template; its {id} is any non-empty
// path segment.
const dataTemplate = "test://template/{id}/data"

var serverTemplates = []ResourceTemplate{
	{dataTemplate, "Resource Template", "A resource template with parameter substitution", "application/json"},
}

// listResources answers resources/list a page at a time (PA-01).
func (s *Server) listResources(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	offered := resourcesOffered(rc)
	if s.opts.Mutant == mutant.ResourceURIInvalid {
		offered = slices.Clone(offered)
		offered[0].URI = strings.Replace(offered[0].URI, "-", " ", 1)
	}
	items, next, rpcErr := page(s, "resources", offered, params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	if s.opts.Mutant == mutant.ListChangedUndeclared && !rc.sess.modern {
		if note, err := jsonrpc.NewNotification("notifications/resources/list_changed", nil); err == nil {
			_ = rc.send(note)
		}
	}
	return pageResult("resources", items, next), nil
}

// listResourceTemplates answers resources/templates/list a page at a time
// (PA-01).
func (s *Server) listResourceTemplates(_ *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	items, next, rpcErr := page(s, "resourceTemplates", serverTemplates, params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	if s.opts.Mutant == mutant.TemplateWithoutName {
		return pageResult("resourceTemplates", []map[string]string{{"uriTemplate": dataTemplate}}, next), nil
	}
	return pageResult("resourceTemplates", items, next), nil
}

// readResource answers resources/read with the contents of a listed
// resource or of a URI the template matches (RS-02); params without a uri
// get -32602, an unknown uri -32002 with the uri in data (RS-05), or in the
// 2026-07-28 era -32602 (RS-10, JR-30); variant NotFoundInvalidParams
// answers -32602 in the legacy era too.
func readResource(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	uri, rpcErr := resourceURI("resources/read", params)
	if rpcErr != nil {
		return nil, rpcErr
	}
	if uri == rootsResource.URI && rc.sess.modern {
		return readClientRoots(rc)
	}
	item, ok := resourceContents(uri)
	switch mut := rc.srv.opts.Mutant; {
	case !ok && mut == mutant.UnknownResourceContents:
		return map[string]any{"contents": []any{}}, nil
	case !ok:
		notFound := resourceNotFound(uri)
		if rc.sess.modern && mut != mutant.NotFoundLegacyCode || mut == mutant.NotFoundInvalidParams {
			notFound.Code = jsonrpc.CodeInvalidParams
		}
		return nil, notFound
	case mut == mutant.ResourceBlobNotBase64 && uri == "test://static-binary":
		item = map[string]string{"uri": uri, "mimeType": "image/png", "blob": "not base64!"}
	}
	return map[string]any{"contents": []any{item}}, nil
}

// resourceURI reads the uri of a resource request's params; params without
// one get -32602.
func resourceURI(method string, params json.RawMessage) (string, *jsonrpc.Error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := mcp.DecodeParams(params, &p); err != nil || p.URI == "" {
		return "", mcp.InvalidParams(method + " needs params with a uri")
	}
	return p.URI, nil
}

// resourceNotFound is the error for a uri the server has no resource at:
// -32002 with the uri in data (RS-05).
func resourceNotFound(uri string) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: jsonrpc.CodeResourceNotFound, Message: fmt.Sprintf("resource %q not found; resources/list and resources/templates/list name the resources", uri), Data: data}
}

// resourceContents is the contents item of the resource at uri: a listed
// resource or a URI the template matches. It reports false for any other
// uri.
func resourceContents(uri string) (any, bool) {
	switch uri {
	case "test://static-text":
		return textResource(uri, "text/plain", "This is the content of the static text resource."), true
	case "test://static-binary":
		return map[string]string{"uri": uri, "mimeType": "image/png", "blob": fixturePNG()}, true
	case "test://watched-resource":
		return textResource(uri, "text/plain", "Watched resource content"), true
	}
	id, ok := templateID(uri)
	if !ok {
		return nil, false
	}
	text, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
	return textResource(uri, "application/json", string(text)), true
}

// templateID matches uri against dataTemplate and returns its id.
func templateID(uri string) (string, bool) {
	prefix, suffix, _ := strings.Cut(dataTemplate, "{id}")
	id, ok := strings.CutPrefix(uri, prefix)
	if !ok {
		return "", false
	}
	id, ok = strings.CutSuffix(id, suffix)
	return id, ok && id != "" && !strings.ContainsAny(id, "/?#")
}
