package server

import "testing"

func TestURITemplateProblem(t *testing.T) {
	for tmpl, valid := range map[string]bool{
		"test://template/{id}/data":      true,
		"file:///{+path}":                true,
		"https://x.example/{a,b:3}{?q*}": true,
		"mcp://{var.name}/{%41b}":        true,
		"plain://no-variables":           true,
		"":                               false,
		"test://{id":                     false,
		"test://id}":                     false,
		"test://{{id}}":                  false,
		"test://{}":                      false,
		"test://{a b}":                   false,
		"test://{id:0}":                  false,
		"test://has space/{id}":          false,
		"test://<angle>/{id}":            false,
		"test://{id}/{$bad}":             false,
		"test://{id}/{+}":                false,
	} {
		if got := uriTemplateProblem(tmpl); (got == "") != valid {
			t.Errorf("uriTemplateProblem(%q) = %q, want valid %t", tmpl, got, valid)
		}
	}
}

func TestLogMessageProblem(t *testing.T) {
	for params, want := range map[string]string{
		`{"level":"info","data":"x"}`:                  "",
		`{"level":"emergency","logger":"l","data":{}}`: "",
		`{"level":"debug","data":null}`:                "",
		`{"level":"verbose","data":"x"}`:               "a level that is not one of the eight",
		`{"level":"info","logger":3,"data":"x"}`:       "a logger that is not a string",
		`{"level":"info"}`:                             "no data",
		`[]`:                                           "params that are not an object",
	} {
		if got := logMessageProblem([]byte(params)); got != want {
			t.Errorf("logMessageProblem(%s) = %q, want %q", params, got, want)
		}
	}
}
