package transcript

import "strings"

// secretEnvNames are the parts of an environment variable's name, in any
// case, that mark its value as a secret, as CI systems pass them:
// GITHUB_TOKEN, NPM_AUTH_TOKEN, AWS_SECRET_ACCESS_KEY, DB_PASSWORD, API_KEY.
var secretEnvNames = []string{"TOKEN", "SECRET", "PASSWORD", "KEY", "AUTH"}

// MinEnvSecret is the shortest value of a secret-named environment variable
// that WithEnv masks: a shorter one (a flag such as 1, true or none) would
// mask the same few letters in every message and transcript, and the
// tokens and keys CI systems hand out are longer. Name a shorter one with
// --secret to mask it.
const MinEnvSecret = 8

// WithEnv returns s with the value of each variable of environ (KEY=value
// entries, as os.Environ gives them) whose name holds one of
// secretEnvNames added in all its forms (Forms), when it is at least
// MinEnvSecret bytes long.
func (s Secrets) WithEnv(environ []string) Secrets {
	return s.With(SecretEnvValues(environ)...)
}

// SecretEnvValues are the values of environ that WithEnv masks, in the
// order of environ.
func SecretEnvValues(environ []string) []string {
	var values []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && len(value) >= MinEnvSecret && secretEnvName(name) {
			values = append(values, value)
		}
	}
	return values
}

// secretEnvName reports whether an environment variable's name marks its
// value as a secret.
func secretEnvName(name string) bool {
	upper := strings.ToUpper(name)
	for _, part := range secretEnvNames {
		if strings.Contains(upper, part) {
			return true
		}
	}
	return false
}
