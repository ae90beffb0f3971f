package certify

import (
	"os"
	"testing"

	"github.com/mcpconform/mcpconform/harness/selfexec"
)

func TestMain(m *testing.M) {
	selfexec.Dispatch()
	os.Exit(m.Run())
}
