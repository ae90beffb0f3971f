package oauth

import (
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/mcpconform/mcpconform/fakeservers/authfake"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// mutantCase is a scenario that tells a client OAuth mutant from the
// reference: observe runs it with the mutant m ("" for the reference) and
// says what it saw, which must be ref for the reference and mut for m.
type mutantCase struct {
	m        mutant.Name
	observe  func(t *testing.T, m mutant.Name) string
	ref, mut string
}

// flowWith runs one request against a resource protected by a fake of
// case c and returns the fake and the resource.
func flowWith(t *testing.T, m mutant.Name, c string, edit func(r *resource)) (*authfake.AS, *resource) {
	t.Helper()
	as := newAS(t, authfake.Options{Case: c})
	r := newResource(t, as)
	if edit != nil {
		r.set(edit)
	}
	_, _ = post(t, r, newAuthorizer(t, r, m, nil))
	return as, r
}

// authorizeParam observes the value of param in the authorization
// request ("none" without a request, "-" without the parameter).
func authorizeParam(c, param string, edit func(r *resource)) func(t *testing.T, m mutant.Name) string {
	return func(t *testing.T, m mutant.Name) string {
		as, _ := flowWith(t, m, c, edit)
		auths := as.RequestsAt(authfake.EndpointAuthorize)
		if len(auths) == 0 {
			return "none"
		}
		q := query(auths[0].Query)
		if !q.Has(param) {
			return "-"
		}
		return q.Get(param)
	}
}

// count observes how many requests the fake of case c records at endpoint.
func count(c, endpoint string, edit func(r *resource)) func(t *testing.T, m mutant.Name) string {
	return func(t *testing.T, m mutant.Name) string {
		as, _ := flowWith(t, m, c, edit)
		return fmt.Sprint(len(as.RequestsAt(endpoint)))
	}
}

var mutantCases = []mutantCase{
	{mutant.AuthNoPKCE, authorizeParam(authfake.CaseGood, "code_challenge_method", nil), "S256", "-"},
	{mutant.AuthPKCEPlain, authorizeParam(authfake.CaseNoPKCE, "code_challenge_method", nil), "none", "plain"},
	{mutant.AuthNoResourceParam, func(t *testing.T, m mutant.Name) string {
		as, r := flowWith(t, m, authfake.CaseGood, nil)
		return fmt.Sprint(query(one(t, as, authfake.EndpointAuthorize).Query).Get("resource") == r.url(),
			query(one(t, as, authfake.EndpointToken).Form).Has("resource"))
	}, "true true", "false false"},
	{mutant.AuthIssUnchecked, count(authfake.CaseIssWrong, authfake.EndpointToken, nil), "0", "1"},
	{mutant.AuthMetadataIssuerUnchecked, count(authfake.CaseIssuerMismatch, authfake.EndpointAuthorize, nil), "0", "1"},
	{mutant.AuthScopeIgnored, authorizeParam(authfake.CaseGood, "scope", func(r *resource) { r.scope = "mcp:read" }), "mcp:read offline_access", "-"},
	{mutant.AuthTokenInQuery, func(t *testing.T, m mutant.Name) string {
		_, r := flowWith(t, m, authfake.CaseGood, nil)
		reqs := r.mcpRequests()
		return fmt.Sprint(len(reqs), reqs[len(reqs)-1].URL.Query().Has("access_token"))
	}, "2 false", "2 true"},
	{mutant.AuthPRMResourceUnchecked, count(authfake.CaseGood, authfake.EndpointAuthorize, func(r *resource) { r.prm["resource"] = "http://127.0.0.1:1/mcp" }), "0", "1"},
	{mutant.AuthStepUpUnbounded, func(t *testing.T, m mutant.Name) string {
		// 403 until the fifth authorization, so that the mutant ends.
		as := newAS(t, authfake.Options{})
		r := newResource(t, as)
		r.set(func(r *resource) {
			r.forbid = func() bool { return len(as.RequestsAt(authfake.EndpointAuthorize)) < 5 }
		})
		st, err := post(t, r, newAuthorizer(t, r, m, nil))
		return fmt.Sprint(st, err)
	}, fmt.Sprint(http.StatusForbidden, nil), fmt.Sprint(http.StatusOK, nil)},
	{mutant.AuthCredentialsReused, func(t *testing.T, m mutant.Name) string {
		as1, as2 := newAS(t, authfake.Options{}), newAS(t, authfake.Options{})
		r := newResource(t, as1)
		a := newAuthorizer(t, r, m, nil)
		mustPost(t, r, a)
		r.set(func(r *resource) { r.as, r.prm["authorization_servers"] = as2, []string{as2.URL()} })
		_, _ = post(t, r, a)
		return fmt.Sprint(len(as2.RequestsAt(authfake.EndpointRegister)))
	}, "1", "0"},
	// The metadata only where the challenge says, not at a well-known URI.
	{resourceMetadataIgnored, count(authfake.CaseGood, authfake.EndpointAuthorize, func(r *resource) { r.prmAt = []string{headerPRMPath} }), "1", "0"},
}

// resourceMetadataIgnored is the mutant the branch writing the
// http.client.auth.* checks adds (it ignores the challenge's
// resource_metadata); its case runs once mutant.ClientAuth lists it.
const resourceMetadataIgnored mutant.Name = "auth-resource-metadata-ignored"

// TestMutantHooks: each client OAuth mutant changes the behaviour its
// description names, and the reference does not.
func TestMutantHooks(t *testing.T) {
	covered := map[mutant.Name]bool{}
	for _, tc := range mutantCases {
		covered[tc.m] = true
		t.Run(string(tc.m), func(t *testing.T) {
			if !slices.ContainsFunc(mutant.ClientAuth, func(m mutant.Mutant) bool { return m.Name == tc.m }) {
				t.Skipf("%s is no client OAuth mutant on this branch", tc.m)
			}
			if got := tc.observe(t, ""); got != tc.ref {
				t.Errorf("reference: %q, want %q", got, tc.ref)
			}
			if got := tc.observe(t, tc.m); got != tc.mut {
				t.Errorf("mutant: %q, want %q", got, tc.mut)
			}
		})
	}
	for _, m := range mutant.ClientAuth {
		if !covered[m.Name] {
			t.Errorf("mutant %s has no case here", m.Name)
		}
	}
}
