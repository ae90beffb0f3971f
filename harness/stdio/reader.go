package stdio

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/mcpconform/mcpconform/harness/failure"
	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// opReadStdout is the operation named in failures found on stdout.
const opReadStdout = "read stdout"

// readStdout runs from spawn until stdout ends. It delivers messages in
// order, skips text within the budgets and ends the session on the first
// protocol failure. Once the session has ended (whoever ended it: end makes a
// blocked read return) it closes Incoming and keeps reading and discarding,
// so a server being shut down never blocks on a full stdout pipe; variant
// NoDrainAfterEnd stops reading there instead.
func (c *Client) readStdout() {
	defer close(c.readerDone)
	delivering := true
	stopDelivering := func() {
		if delivering {
			delivering = false
			close(c.incoming)
		}
	}
	defer func() {
		<-c.done
		stopDelivering()
	}()
	lr := newLineReader(c.stdout, c.cfg.MaxLineBytes)
	h := &lineHandler{budget: newTextBudget(c.cfg, c.report), mutant: c.cfg.Mutant}
	for {
		if c.cfg.Mutant == mutant.NoDrainAfterEnd && c.ended() {
			return
		}
		line, newline, err := lr.next()
		if c.ended() {
			stopDelivering()
		}
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			// end interrupted the read; from now on reads block again.
			_ = c.stdout.SetReadDeadline(time.Time{})
			continue
		case errors.Is(err, errLineTooLong):
			c.fail(failure.New(failure.ErrProtocol, opReadStdout,
				fmt.Sprintf("stdout line longer than %d bytes (MaxLineBytes)", c.cfg.MaxLineBytes)))
			stopDelivering()
			continue
		case err != nil:
			c.stdoutEnded(err)
			return
		}
		if !delivering {
			continue
		}
		msgs, f := h.handle(line, newline)
		if f != nil {
			c.fail(f)
			stopDelivering()
			continue
		}
		for _, m := range msgs {
			if !c.deliver(m) {
				break
			}
		}
	}
}

// deliver hands m to the session; it gives up when the session ends.
func (c *Client) deliver(m *jsonrpc.Message) bool {
	select {
	case c.incoming <- m:
		return true
	case <-c.done:
		return false
	}
}

// lineHandler turns stdout lines into messages under rules NG-01 … NG-03
// and NG-12. It is used by the reader goroutine only.
type lineHandler struct {
	budget     *textBudget
	mutant     mutant.Name
	sawMessage bool // a message arrived (mutant TextFatalBeforeInit)
	dropNext   bool // a text line was skipped (mutant DropAfterText)
	stalled    bool // a damaged line was seen (mutant DamagedFailsLate)
}

// handle classifies one line (given without its newline) and returns the
// messages it holds, nothing for skipped text, or the protocol failure that
// ends the session. Failure details give the class and the length of the
// line, never its content.
func (h *lineHandler) handle(line []byte, newline bool) ([]*jsonrpc.Message, *failure.Error) {
	if h.stalled {
		return nil, nil
	}
	class := classify(line, h.mutant)
	switch class {
	case jsonrpc.ClassMessage:
		m, err := jsonrpc.Decode(line)
		if err != nil {
			return nil, failure.Wrap(failure.ErrProtocol, opReadStdout,
				fmt.Errorf("stdout line of %d bytes is not a valid JSON-RPC message: %w", len(line), err))
		}
		return h.messages([]*jsonrpc.Message{m}), nil
	case jsonrpc.ClassBatch:
		ms, err := jsonrpc.DecodeBatch(line)
		if err != nil {
			return nil, failure.Wrap(failure.ErrProtocol, opReadStdout,
				fmt.Errorf("stdout batch line of %d bytes is not valid: %w", len(line), err))
		}
		if h.mutant == mutant.BatchDropped {
			return nil, nil
		}
		return h.messages(ms), nil
	case jsonrpc.ClassText:
		return nil, h.text(line, newline)
	case jsonrpc.ClassDamaged:
		if h.mutant == mutant.DamagedFailsLate {
			h.stalled = true
			return nil, nil
		}
		return nil, failure.New(failure.ErrProtocol, opReadStdout, fmt.Sprintf(
			"stdout line of %d bytes is %s: it starts with '{' or a '[' that opens a batch, or mentions jsonrpc, and does not parse (NG-01, NG-02)",
			len(line), class))
	}
	return nil, failure.New(failure.ErrProtocol, opReadStdout, fmt.Sprintf(
		"stdout line of %d bytes is %s: valid JSON but neither a message object nor a batch (NG-02)", len(line), class))
}

// messages records that messages arrived and returns them.
func (h *lineHandler) messages(ms []*jsonrpc.Message) []*jsonrpc.Message {
	h.sawMessage = true
	if h.dropNext {
		h.dropNext = false
		ms = ms[1:]
	}
	return ms
}

// text skips a text line within the budgets, or returns the failure.
func (h *lineHandler) text(line []byte, newline bool) *failure.Error {
	if h.mutant == mutant.TextFatalBeforeInit && !h.sawMessage {
		return failure.New(failure.ErrProtocol, opReadStdout,
			fmt.Sprintf("stdout line of %d bytes is text before the first message", len(line)))
	}
	size := int64(len(line))
	if newline {
		size++
	}
	if f := h.budget.skip(line, size); f != nil {
		return f
	}
	if h.mutant == mutant.DropAfterText {
		h.dropNext = true
	}
	return nil
}
