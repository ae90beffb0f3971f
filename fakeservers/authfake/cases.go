package authfake

import (
	"fmt"
	"slices"
	"strings"
)

// Case IDs of Options.Case. The empty case is CaseGood.
const (
	// CaseGood is a well-behaved authorization server.
	CaseGood = "good"
	// CaseIssuerMismatch publishes metadata whose issuer is not the URL it
	// was fetched for (RFC 8414 §3.3: the client must not use it).
	CaseIssuerMismatch = "issuer-mismatch"
	// CaseNoPKCE advertises no code_challenge_methods_supported and
	// issues codes without a code challenge (AU-11: the client must refuse
	// to proceed).
	CaseNoPKCE = "no-pkce"
	// CaseOtherResource binds every token it issues to OtherResource,
	// whatever resource the client asked for.
	CaseOtherResource = "other-resource"
	// CaseIssMissing advertises authorization_response_iss_parameter_supported
	// and omits iss from the authorization response (RFC 9207, AU-12).
	CaseIssMissing = "iss-missing"
	// CaseIssWrong sends an iss that is not its issuer in the
	// authorization response (RFC 9207, AU-12).
	CaseIssWrong = "iss-wrong"
	// CaseRegistrationRefused refuses every dynamic registration with 400
	// invalid_client_metadata.
	CaseRegistrationRefused = "registration-refused"
	// CaseAuthMethodMismatch demands at its token endpoint an
	// authentication method other than the one the client registered and
	// used (client_secret_post for a client_secret_basic client, else
	// client_secret_basic), answering 401 invalid_client.
	CaseAuthMethodMismatch = "auth-method-mismatch"
)

// OtherResource is the audience CaseOtherResource binds its tokens to.
const OtherResource = "https://other-resource.invalid/mcp"

// WrongIssuer is the issuer CaseIssuerMismatch publishes and CaseIssWrong
// sends as iss.
const WrongIssuer = "https://wrong-issuer.invalid"

// caseSummaries are the case IDs with what each does, for listings.
var caseSummaries = map[string]string{
	CaseGood:                "well-behaved",
	CaseIssuerMismatch:      "metadata issuer differs from the URL it was fetched for",
	CaseNoPKCE:              "no code_challenge_methods_supported; codes without PKCE",
	CaseOtherResource:       "tokens bound to " + OtherResource,
	CaseIssMissing:          "iss advertised but missing from the authorization response",
	CaseIssWrong:            "authorization response iss is not the issuer",
	CaseRegistrationRefused: "dynamic registration refused (400 invalid_client_metadata)",
	CaseAuthMethodMismatch:  "token endpoint demands an auth method other than the client's",
}

// Cases returns every case ID, sorted.
func Cases() []string {
	ids := make([]string, 0, len(caseSummaries))
	for id := range caseSummaries {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// CaseSummary says what case id does; "" for an unknown case.
func CaseSummary(id string) string { return caseSummaries[id] }

// checkCase resolves an empty case to CaseGood and refuses an unknown one.
func checkCase(id string) (string, error) {
	if id == "" {
		return CaseGood, nil
	}
	if _, ok := caseSummaries[id]; !ok {
		return "", fmt.Errorf("auth fake: unknown case %q; cases: %s", id, strings.Join(Cases(), ", "))
	}
	return id, nil
}
