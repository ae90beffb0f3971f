package stdioserver

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// serverBanner is what mutant StdoutBanner writes before its first message.
const serverBanner = "mcpconform reference server ready"

// lineWriter writes the server's messages to stdout, one line each, whole
// (ST-02). A write that fails ends the connection through broken.
type lineWriter struct {
	broken func(error)

	mu     sync.Mutex
	w      io.Writer
	banner bool // mutant StdoutBanner: a banner line still has to go first (ST-03)
	// batched is mutant StdoutBatchLine: each message is written as an
	// array of one, whatever the version (ST-10).
	batched bool
}

// write writes one message as a line.
func (lw *lineWriter) write(m *jsonrpc.Message) error {
	data, err := jsonrpc.Encode(m)
	if err != nil {
		data, _ = jsonrpc.Encode(jsonrpc.NewError(m.ID, jsonrpc.CodeInternalError, "the server could not encode its message"))
	}
	if lw.batched {
		data = append(append([]byte("["), data...), ']')
	}
	return lw.line(data)
}

// writeBatch writes the responses of a batch as one array line (JR-35);
// nil entries (notifications, responses, cancelled requests) are left out,
// and without any response nothing is written.
func (lw *lineWriter) writeBatch(resps []*jsonrpc.Message) {
	var parts [][]byte
	for _, r := range resps {
		if r == nil {
			continue
		}
		data, err := jsonrpc.Encode(r)
		if err != nil {
			data, _ = jsonrpc.Encode(jsonrpc.NewError(r.ID, jsonrpc.CodeInternalError, "the server could not encode its response"))
		}
		parts = append(parts, data)
	}
	if len(parts) > 0 {
		_ = lw.line(append(append([]byte("["), bytes.Join(parts, []byte(","))...), ']'))
	}
}

// line writes data and a newline in one write.
func (lw *lineWriter) line(data []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.banner {
		lw.banner = false
		if _, err := io.WriteString(lw.w, serverBanner+"\n"); err != nil {
			return lw.fail(err)
		}
	}
	if _, err := lw.w.Write(append(data, '\n')); err != nil {
		return lw.fail(err)
	}
	return nil
}

// fail ends the connection over a broken stdout. The caller holds lw.mu.
func (lw *lineWriter) fail(err error) error {
	err = fmt.Errorf("writing stdout: %w", err)
	lw.broken(err)
	return err
}
