package httpclient

import (
	"context"
	"io"
	"net/http"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Close ends the client (RM-13): queued POSTs are dropped, the session is
// ended with one DELETE carrying its id (HT-58; none for a stateless
// session), bounded by ControlRequestTimeout, then POSTs in progress and
// streams are aborted. It waits for the client's goroutines, then closes
// Incoming and Failures. It is idempotent; it returns an error only when
// the DELETE failed (a 404 or 405 answer is fine), and the client is closed
// either way.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.err = failure.New(failure.ErrShutdown, "close", "the client was closed by its owner")
		sess := c.sess
		c.mu.Unlock()
		close(c.done)
		c.ordinary.drop()
		c.control.drop()
		if sess.id != "" && c.cfg.Mutant != mutant.NoDeleteOnClose {
			c.closeErr = c.deleteSession(sess)
		}
		c.cancel()
		c.wg.Wait()
		close(c.incoming)
		close(c.failures)
		if c.own != nil {
			c.own.CloseIdleConnections()
		}
	})
	return c.closeErr
}

// deleteSession sends the DELETE that ends sess (HT-58).
func (c *Client) deleteSession(sess *session) error {
	const op = "DELETE session"
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.ControlRequestTimeout)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodDelete, nil, sess)
	if err != nil {
		return failure.Wrap(failure.ErrConnection, op, err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return doFailure(ctx, op, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode <= 299,
		resp.StatusCode == http.StatusNotFound,
		resp.StatusCode == http.StatusMethodNotAllowed:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody))
		return nil
	}
	return statusFailure(op, resp)
}
