package stdio

import (
	"crypto/rand"
	"encoding/hex"
)

// newMarker returns a unique marker a fake embeds in what it writes, so a
// check can tell whether those bytes reached the client's output.
func newMarker(kind string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "MCPCONFORM-" + kind + "-" + hex.EncodeToString(b)
}
