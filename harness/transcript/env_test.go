package transcript

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
)

func TestSecretNamedEnvironmentValuesAreMasked(t *testing.T) {
	environ := []string{
		"X_API_TOKEN=PLANTEDENV",
		"github_token=ghp_lowercase_name",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG",
		"DB_Password=correct-horse",
		"MY_KEYRING=keyring-value",
		"NPM_AUTH=npm-auth-value",
		"SHORT_TOKEN=1234567",
		"FEATURE_AUTH=true",
		"PATH=/usr/local/bin:/usr/bin",
		"HOME=/home/someone",
		"EMPTY_SECRET=",
		"NOT_AN_ASSIGNMENT",
	}
	want := []string{"PLANTEDENV", "ghp_lowercase_name", "wJalrXUtnFEMI/K7MDENG", "correct-horse", "keyring-value", "npm-auth-value"}
	if got := SecretEnvValues(environ); !slices.Equal(got, want) {
		t.Fatalf("SecretEnvValues = %q, want %q", got, want)
	}
	s := Secrets{}.WithEnv(environ)
	text := "env: PLANTEDENV " + base64.StdEncoding.EncodeToString([]byte("PLANTEDENV")) + " wJalrXUtnFEMI%2FK7MDENG, PATH=/usr/local/bin:/usr/bin, 1234567, true"
	got := s.Redact(text)
	for _, leak := range []string{"PLANTEDENV", "UExBTlRFREVOVg", "wJalrXUtnFEMI"} {
		if strings.Contains(got, leak) {
			t.Errorf("%s survived: %q", leak, got)
		}
	}
	// A value under MinEnvSecret, and every value of a variable not named
	// as a secret, is left alone.
	for _, kept := range []string{"PATH=/usr/local/bin:/usr/bin", "1234567", "true"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%s was masked: %q", kept, got)
		}
	}
}
