package certify

import (
	"errors"
	"io"
	"os"

	"github.com/mcpconform/mcpconform/harness/transcript"
)

// SecretFlagUsage is the help of --secret, the same on every command.
const SecretFlagUsage = "a `VALUE` shown as *** wherever it would appear, URL-encoded or in base64 too: console, reports, transcripts, snapshots (repeatable; each use is one value, commas included; secret-named environment variables are masked without it)"

// authTokenCommandUsage is the help of --auth-token-command.
const authTokenCommandUsage = "a shell command line (`CMD`, run with sh -c) that prints a bearer token for the server on its first stdout line, for the http.server.auth.* checks: " +
	"it is run with MCPCONFORM_AUTH_RESOURCE (the token's audience), MCPCONFORM_AUTH_SCOPE (space-separated scopes, may be empty) and MCPCONFORM_AUTH_EXPIRED (1: a token that has expired); " +
	"a status other than 0 or no output means it cannot give that token. Every token is masked in every output. Against mcpconform serve --auth, its auth_token_command"

// SecretList is the repeatable --secret flag. Each use is one value taken
// whole: a secret may hold a comma.
type SecretList []string

// String shows no value: flag prints it as a default, never a secret.
func (l *SecretList) String() string { return "" }

func (l *SecretList) Set(v string) error {
	if v == "" {
		return errors.New("an empty secret masks nothing; give the value to mask")
	}
	*l = append(*l, v)
	return nil
}

// RunSecrets are what a command masks in everything it writes, each in
// all its forms (transcript.Forms): the --secret values, the credentials of
// its --url (its userinfo, as Go's client sends it in a Basic header too,
// and its query values), and the values of this process's secret-named
// environment variables (transcript.SecretEnvValues), which the workers of
// a parallel run inherit and so mask alike.
func RunSecrets(values []string, rawURL string) transcript.Secrets {
	s := transcript.Secrets{}.With(values...).WithEnv(os.Environ())
	if rawURL != "" {
		s = s.WithURL(rawURL)
	}
	return s
}

// maskedWriter is a command's console, stdout or stderr: every write is
// masked before it reaches w. Each fmt.Fprint call is one write, so what
// one call prints is masked whole.
type maskedWriter struct {
	w       io.Writer
	secrets transcript.Secrets
}

// Masked returns w with every write masked with secrets.
func Masked(w io.Writer, secrets transcript.Secrets) io.Writer {
	return maskedWriter{w: w, secrets: secrets}
}

func (m maskedWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(m.w, m.secrets.Redact(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
