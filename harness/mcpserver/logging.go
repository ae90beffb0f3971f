package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
	"github.com/mcpconform/mcpconform/harness/mutant"
)

// logLevels are the severities of notifications/message, least severe first.
var logLevels = mcp.LogLevels()

// levelIndex is a level's severity rank in logLevels (debug 0 … emergency
// 7), or -1 for a string that is not one of the eight (LG-02).
func levelIndex(level string) int { return slices.Index(logLevels, level) }

// setLogLevel sets the session's threshold (LG-03, CX-02): from now on only
// messages at that level or more severe are sent. A level that is not one of
// the eight gets -32602 (LG-06).
func (s *Server) setLogLevel(rc *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
	var p struct {
		Level string `json:"level"`
	}
	err := mcp.DecodeParams(params, &p)
	i := levelIndex(p.Level)
	if s.opts.Mutant == mutant.InvalidLevelAccepted && err == nil && i < 0 {
		i = 0
	}
	if err != nil || i < 0 {
		return nil, mcp.InvalidParams(fmt.Sprintf("logging/setLevel needs a level, one of %v", logLevels))
	}
	rc.sess.mu.Lock()
	rc.sess.level = i
	rc.sess.mu.Unlock()
	return struct{}{}, nil
}

// logParams are the params of notifications/message (LG-07): Logger is a
// string when present, but a number under mutant LogLoggerNotString.
type logParams struct {
	Level  string `json:"level"`
	Logger any    `json:"logger,omitempty"`
	Data   any    `json:"data"`
}

// Log sends a notifications/message at level about the request (CX-02),
// from logger (may be empty) with data (any JSON value). A message less
// severe than the session's threshold is not sent and is no error; the
// threshold is "info" until the client sets one (LG-04, LG-05). An unknown
// level is an error.
func (rc *RequestContext) Log(level, logger string, data any) error {
	i := levelIndex(level)
	if i < 0 {
		return fmt.Errorf("log level %q is not one of %v", level, logLevels)
	}
	rc.sess.mu.Lock()
	threshold := rc.sess.level
	rc.sess.mu.Unlock()
	if i < threshold && rc.srv.opts.Mutant != mutant.LogBelowThreshold {
		return nil
	}
	if rc.srv.opts.Mutant == mutant.LogLevelMalformed {
		level = "verbose"
	}
	params := logParams{Level: level, Data: data}
	switch {
	case rc.srv.opts.Mutant == mutant.LogLoggerNotString:
		params.Logger = len(logger)
	case logger != "":
		params.Logger = logger
	}
	note, err := jsonrpc.NewNotification("notifications/message", params)
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	return rc.send(note)
}
