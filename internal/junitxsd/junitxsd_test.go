package junitxsd

import (
	"strings"
	"testing"
)

func TestSchemaRulesRejectWhatTheSchemaForbids(t *testing.T) {
	rules, err := parse(schemaXSD)
	if err != nil {
		t.Fatal(err)
	}
	for doc, want := range map[string]string{
		`<testsuites><testsuite tests="1"><testcase name="a"/></testsuite></testsuites>`:                          "",
		`<testsuites><testsuite><testcase name="a"/></testsuite></testsuites>`:                                    "required attribute tests",
		`<testsuites><testsuite tests="1"><testcase name="a" owner="x"/></testsuite></testsuites>`:                "attribute owner is not declared",
		`<testsuites><testcase name="a"/></testsuites>`:                                                           "may not hold <testcase>",
		`<testsuites><testsuite tests="1">text</testsuite></testsuites>`:                                          "text in <testsuite>",
		`<testsuites><bogus/></testsuites>`:                                                                       "not in the schema",
		`<testsuites><testsuite tests="1"><properties><property name="a"/></properties></testsuite></testsuites>`: "required attribute value",
	} {
		got := strings.Join(rules.validate([]byte(doc)), "; ")
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("%s: problems %q, want %q", doc, got, want)
		}
	}
}
