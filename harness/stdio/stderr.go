package stdio

import (
	"fmt"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// stderrReadSize is the chunk in which stderr is drained into the tail.
const stderrReadSize = 32 << 10

// drainStderr reads the server's stderr from spawn to exit, concurrently with
// stdout, keeping only the tail (NG-05). stderr volume never ends the
// session, and what it holds never reaches an error or a report (NG-06).
func (c *Client) drainStderr() {
	defer close(c.stderrDone)
	if c.cfg.Mutant == mutant.NoStderrDrain {
		return
	}
	buf := make([]byte, stderrReadSize)
	for {
		n, err := c.stderr.Read(buf)
		if n > 0 {
			_, _ = c.tail.Write(buf[:n])
			if c.cfg.Mutant == mutant.StderrVolumeFatal && c.tail.Total() > int64(c.cfg.MaxStderrBytes) {
				c.fail(failure.New(failure.ErrProtocol, "read stderr",
					fmt.Sprintf("server wrote more than %d bytes to stderr", c.cfg.MaxStderrBytes)))
			}
		}
		if err != nil {
			return
		}
	}
}
