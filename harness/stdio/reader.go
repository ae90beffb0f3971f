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
	h := &lineHandler{budget: newTextBudget(c.cfg, c.report), mutant: c.cfg.Mutant, answer: c.answerInvalid}
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

// AnswerInvalidRequests has the client answer every JSON object the server
// writes from now on that is no valid request with -32600 (JR-21); before,
// it ignores them. The session calls it once its legacy handshake is done
// (mcpclient.InvalidRequestAnswerer): a 2026-07-28 client sends no
// responses (JR-17).
func (c *Client) AnswerInvalidRequests() { c.answersInvalid.Store(true) }

// answerInvalid sends the server the answer to a JSON object it wrote that
// is no valid request, once AnswerInvalidRequests was called. It sends from
// a goroutine of its own, so the reader never waits on a server that does
// not read its stdin; a send after the session ended fails, and there is
// nothing more to do then.
func (c *Client) answerInvalid(reply *jsonrpc.Message) {
	if c.answersInvalid.Load() {
		go func() { _ = c.Send(reply) }()
	}
}

// lineHandler turns stdout lines into messages under rules NG-01 … NG-03
// and NG-12, and has a JSON object that is no valid request answered
// (JR-21). It is used by the reader goroutine only.
type lineHandler struct {
	budget     *textBudget
	mutant     mutant.Name
	answer     func(*jsonrpc.Message) // sends the answer to an invalid request; nil: none is sent
	sawMessage bool                   // a message arrived (mutant TextFatalBeforeInit)
	dropNext   bool                   // a text line was skipped (mutant DropAfterText)
	stalled    bool                   // a damaged line was seen (mutant DamagedFailsLate)
}

// handle classifies one line (given without its newline) and returns the
// messages it holds, nothing for skipped text or an invalid request, or the
// protocol failure that ends the session. A JSON object that is no valid
// message is answered with -32600 and the session goes on (JR-21: NG-02
// ends it for lines that do not parse and JSON that is no object, not for
// an object with a bad member), unless it is a broken response, which is
// never answered and may be the one a call waits for: that ends the
// session. Failure details give the class and the length of the line,
// never its content.
func (h *lineHandler) handle(line []byte, newline bool) ([]*jsonrpc.Message, *failure.Error) {
	if h.stalled {
		return nil, nil
	}
	class := classify(line, h.mutant)
	switch class {
	case jsonrpc.ClassMessage:
		m, err := jsonrpc.Decode(line)
		if err != nil {
			return nil, h.invalid(line, err)
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

// invalid has object line, which err says is no valid message, answered
// with -32600 when it is no response (JR-21), or returns the failure that
// ends the session.
func (h *lineHandler) invalid(line []byte, err error) *failure.Error {
	if reply, ok := jsonrpc.InvalidRequestReply(line, err); ok && h.mutant != mutant.InvalidRequestFatal {
		if h.answer != nil && h.mutant != mutant.InvalidRequestUnanswered {
			h.answer(reply)
		}
		return nil
	}
	return failure.Wrap(failure.ErrProtocol, opReadStdout,
		fmt.Errorf("stdout line of %d bytes is not a valid JSON-RPC message: %w", len(line), err))
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
