package authfake

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// StatusWriter remembers the status a handler answered; it flushes
// through, so that an SSE answer streams. resourcefake records with it too.
type StatusWriter struct {
	http.ResponseWriter
	status int
}

func (w *StatusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *StatusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Status is the status answered; zero while nothing was.
func (w *StatusWriter) Status() int { return w.status }

// Flush passes a flush on to the writer under it.
func (w *StatusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// serve routes one request to its endpoint and records it.
func (a *AS) serve(w http.ResponseWriter, r *http.Request) {
	rq := Request{
		Time:   time.Now(),
		Method: r.Method,
		Path:   r.URL.Path,
		Query:  r.URL.Query(),
		Header: r.Header.Clone(),
	}
	sw := &StatusWriter{ResponseWriter: w}
	r.Body = http.MaxBytesReader(sw, r.Body, maxBody)
	rq.Endpoint = a.endpoint(r.URL.Path)
	switch rq.Endpoint {
	case EndpointMetadata, EndpointOpenID:
		a.metadata(sw, r)
	case EndpointAuthorize:
		a.authorize(sw, r)
	case EndpointToken:
		rq.AuthMethod = a.token(sw, r)
		rq.Form = r.PostForm
	case EndpointRegister:
		rq.Body = a.register(sw, r)
	case EndpointIssue:
		a.issue(sw, r)
		rq.Form = r.PostForm
	default:
		http.NotFound(sw, r)
	}
	rq.Status = sw.status
	a.record(rq)
}

// endpoint names the endpoint path serves.
func (a *AS) endpoint(path string) string {
	ip := a.o.IssuerPath
	switch path {
	case WellKnownAS + ip:
		return EndpointMetadata
	case WellKnownOpenID + ip, ip + WellKnownOpenID:
		return EndpointOpenID
	case ip + PathAuthorize:
		return EndpointAuthorize
	case ip + PathToken:
		return EndpointToken
	case ip + PathRegister:
		return EndpointRegister
	case ip + PathIssue:
		return EndpointIssue
	}
	return EndpointUnknown
}

// Metadata is the fake's RFC 8414 authorization server metadata, as its
// case publishes it.
func (a *AS) Metadata() map[string]any {
	issuer := a.URL()
	m := map[string]any{
		"issuer":                                         issuer,
		"authorization_endpoint":                         issuer + PathAuthorize,
		"token_endpoint":                                 issuer + PathToken,
		"registration_endpoint":                          issuer + PathRegister,
		"scopes_supported":                               a.o.Scopes,
		"response_types_supported":                       []string{"code"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token", "client_credentials"},
		"token_endpoint_auth_methods_supported":          []string{AuthBasic, AuthPost, AuthNone},
		"code_challenge_methods_supported":               []string{"S256"},
		"authorization_response_iss_parameter_supported": true,
	}
	if a.o.ClientIDMetadata {
		m["client_id_metadata_document_supported"] = true
	}
	switch a.o.Case {
	case CaseIssuerMismatch:
		m["issuer"] = WrongIssuer
	case CaseNoPKCE:
		delete(m, "code_challenge_methods_supported")
	}
	return m
}

func (a *AS) metadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "metadata is read with GET", http.StatusMethodNotAllowed)
		return
	}
	writeJSON(w, http.StatusOK, a.Metadata())
}

// oauthError answers an RFC 6749 §5.2 error.
func oauthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client went away: nothing to do
}

// readBody reads a registration body within maxBody.
func readBody(r *http.Request) (string, error) {
	b, err := io.ReadAll(r.Body)
	return string(b), err
}

// scopes splits a space-separated scope parameter.
func scopes(s string) []string { return strings.Fields(s) }
