// Package stdioserver is the reference stdio server transport: it serves
// an MCP server such as *mcpserver.Server on stdin and stdout, one JSON-RPC
// message per line and nothing else on stdout (ST-02, ST-03, ST-10). The
// client side of the transport is package stdio.
package stdioserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcpserver"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// Handler answers the messages of a stdio connection; *mcpserver.Server is
// one. Requests are handled concurrently, each in its own goroutine, so that
// a cancellation or a reply to the server's own request can arrive while
// they run; initialize, notifications and responses are handled in order,
// in the read loop, and must return quickly.
type Handler interface {
	Handle(ctx context.Context, s mcpserver.SessionInfo, m *jsonrpc.Message, out func(*jsonrpc.Message) error) *jsonrpc.Message
}

// Options configure the reference stdio server transport. The zero
// value of every field means its default.
type Options struct {
	// Handler answers the messages.
	Handler Handler
	// MaxLineBytes bounds one stdin line; a longer one is discarded and
	// answered with -32600, so memory stays bounded whatever the client
	// writes. Default DefaultMaxLineBytes.
	MaxLineBytes int
	// Mutant selects a mutant of the reference server; empty is the
	// reference.
	Mutant mutant.Name
}

// DefaultMaxLineBytes is the default bound of one stdin line.
const DefaultMaxLineBytes = 4 << 20

// batchVersion is the only protocol version with JSON-RPC batches (JR-35,
// JR-37).
const batchVersion = "2025-03-26"

// Serve serves one MCP connection over stdio: one JSON-RPC message per line
// on stdin, one per line on stdout and nothing else there (ST-02, ST-03,
// ST-10). An unparseable line is answered with -32700 and a null id (JR-20),
// a line that is JSON but no valid message with -32600 (JR-21), with the
// message's id when it can be read. A 2025-03-26 session may send batches
// (JR-35); later ones get -32600 for them (JR-37).
//
// Serve returns nil when stdin ends (LC-21), the context's cause when ctx
// ends, or the error that broke stdout. Before returning it ends the
// handlers' context and waits for them; their responses are still written.
// A read blocked on stdin is left behind: the caller's process exits.
func Serve(ctx context.Context, cfg Options, stdin io.Reader, stdout io.Writer) error {
	if cfg.Handler == nil {
		return errors.New("stdioserver.Serve: Options.Handler is nil; set it to the MCP server that answers the messages")
	}
	if cfg.MaxLineBytes <= 0 {
		cfg.MaxLineBytes = DefaultMaxLineBytes
	}
	ctx, stop := context.WithCancelCause(ctx)
	srv := &lineServer{cfg: cfg, ctx: ctx, w: &lineWriter{w: stdout, broken: stop, banner: cfg.Mutant == mutant.StdoutBanner, batched: cfg.Mutant == mutant.StdoutBatchLine}, sess: &stdioSession{}}
	lines := make(chan stdinLine)
	go srv.read(stdin, lines)
	for {
		select {
		case <-ctx.Done():
			srv.wg.Wait()
			return context.Cause(ctx)
		case l := <-lines:
			if l.err != nil {
				stop(l.err)
				srv.wg.Wait()
				if errors.Is(l.err, io.EOF) {
					return nil
				}
				return fmt.Errorf("reading stdin: %w", l.err)
			}
			srv.line(l)
		}
	}
}

// lineServer is one stdio connection being served.
type lineServer struct {
	cfg  Options
	ctx  context.Context // the handlers' context; ends when Serve returns
	w    *lineWriter
	sess *stdioSession
	wg   sync.WaitGroup // requests being handled
	// requests counts the requests read, for mutant PlantedStdoutLog; only
	// the read loop touches it.
	requests int
}

// stdinLine is one line of stdin, or why there are no more.
type stdinLine struct {
	data    []byte
	tooLong bool
	err     error
}

// readBufferSize is the stdin read buffer; longer lines are assembled from
// its fragments.
const readBufferSize = 64 << 10

// read sends stdin's lines, each a copy, until stdin ends or Serve returns.
func (srv *lineServer) read(stdin io.Reader, lines chan<- stdinLine) {
	r := bufio.NewReaderSize(stdin, readBufferSize)
	for {
		data, _, tooLong, err := jsonrpc.ReadLine(r, srv.cfg.MaxLineBytes)
		l := stdinLine{data: data, tooLong: tooLong, err: err}
		select {
		case lines <- l:
		case <-srv.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

// line handles one line of stdin.
func (srv *lineServer) line(l stdinLine) {
	if l.tooLong {
		srv.refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("the line is longer than %d bytes; send smaller messages", srv.cfg.MaxLineBytes))
		return
	}
	t := jsonrpc.TrimLine(l.data)
	switch {
	case len(t) == 0:
		return // a blank line carries no message
	case !json.Valid(t):
		id := jsonrpc.ID{}
		if srv.cfg.Mutant == mutant.ParseErrorWithID {
			id = jsonrpc.IntID(0)
		}
		srv.refuse(id, jsonrpc.CodeParseError, "the line is not valid JSON; send one JSON-RPC message per line")
	case t[0] == '[':
		srv.batch(t)
	default:
		m, err := jsonrpc.Decode(t)
		if err != nil {
			srv.invalid(t, err)
			return
		}
		srv.message(m)
	}
}

// invalid answers a line that is JSON but not a valid message (JR-21),
// with its id when the id can be read.
func (srv *lineServer) invalid(t []byte, err error) {
	var probe struct {
		ID jsonrpc.ID `json:"id"`
	}
	_ = json.Unmarshal(t, &probe)
	code := int64(jsonrpc.CodeInvalidRequest)
	if srv.cfg.Mutant == mutant.InvalidRequestAsMethodMissing {
		code = jsonrpc.CodeMethodNotFound
	}
	srv.refuse(probe.ID, code, err.Error())
}

// refuse writes an error response.
func (srv *lineServer) refuse(id jsonrpc.ID, code int64, message string) {
	srv.w.write(jsonrpc.NewError(id, code, message))
}

// message hands one message to the handler: a request in its own goroutine,
// anything else at once. initialize is answered before the next line is
// read, so the handshake keeps its order even when the client pipelines
// notifications/initialized behind it (LC-02, LC-05). Whatever the handler
// answers is written.
func (srv *lineServer) message(m *jsonrpc.Message) {
	if m.Kind() == jsonrpc.KindRequest {
		srv.received()
	}
	if m.Method == "initialize" && m.Kind() == jsonrpc.KindRequest {
		srv.reply(m, srv.request(m))
		return
	}
	if m.Kind() != jsonrpc.KindRequest {
		if resp := srv.cfg.Handler.Handle(srv.ctx, srv.sess, m, srv.out); resp != nil {
			srv.w.write(resp)
		}
		return
	}
	srv.wg.Go(func() { srv.reply(m, srv.request(m)) })
}

// request handles one request and notes the version initialize negotiated.
func (srv *lineServer) request(req *jsonrpc.Message) *jsonrpc.Message {
	resp := srv.cfg.Handler.Handle(srv.ctx, srv.sess, req, srv.out)
	if req.Method == "initialize" && resp != nil && resp.Kind() == jsonrpc.KindResult {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(resp.Result, &r)
		srv.sess.setVersion(r.ProtocolVersion)
	}
	return resp
}

// out is the handlers' way to send notifications and requests.
func (srv *lineServer) out(m *jsonrpc.Message) error {
	if k := m.Kind(); k == jsonrpc.KindResult || k == jsonrpc.KindError {
		return fmt.Errorf("out sends notifications and requests; return the %s from Handle instead", k)
	}
	return srv.w.write(m)
}

// batch handles a JSON array: in a 2025-03-26 session its messages are
// handled and the responses written as one array (JR-35); otherwise, and for
// an empty or invalid array, or one holding initialize (JR-36), -32600.
func (srv *lineServer) batch(t []byte) {
	if v := srv.sess.ProtocolVersion(); v != batchVersion || srv.cfg.Mutant == mutant.BatchRefused {
		srv.refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
			"JSON-RPC batches exist only in protocol version %s and this session speaks %q; send one message per line", batchVersion, v))
		return
	}
	msgs, err := jsonrpc.DecodeBatch(t)
	if err != nil {
		srv.refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, err.Error())
		return
	}
	for _, m := range msgs {
		if m.Method == "initialize" {
			srv.refuse(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "initialize is never part of a batch; send it alone")
			return
		}
	}
	resps := make([]*jsonrpc.Message, len(msgs))
	var requests sync.WaitGroup
	for i, m := range msgs {
		if m.Kind() == jsonrpc.KindRequest {
			srv.received()
			requests.Go(func() { resps[i] = srv.request(m) })
			continue
		}
		resps[i] = srv.cfg.Handler.Handle(srv.ctx, srv.sess, m, srv.out)
	}
	srv.wg.Go(func() {
		requests.Wait()
		srv.w.writeBatch(resps)
	})
}

// stdioSession is the one session of a stdio connection: it has no id.
type stdioSession struct {
	mu      sync.Mutex
	version string
}

// ID is empty: stdio has no session ids.
func (s *stdioSession) ID() string { return "" }

// ProtocolVersion is the version initialize negotiated; empty before.
func (s *stdioSession) ProtocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version
}

func (s *stdioSession) setVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version = v
}
