package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpconform/mcpconform/harness/mcp"
)

// mcpconform's own tools.

// serverLogger is the logger name of the reference server's log messages.
const serverLogger = "mcpconform"

// slow waits until the client cancels it, or ms milliseconds pass (when
// given), or the server's SlowBound does, whichever is first (CX-04). With a
// progressToken it first reports progress 0, so a client knows it is
// running.
func slow(rc *RequestContext, args json.RawMessage) (mcp.CallToolResult, error) {
	var a struct {
		MS *int64 `json:"ms"`
	}
	if err := decodeArgs(args, &a); err != nil || (a.MS != nil && *a.MS < 0) {
		return mcp.CallToolResult{}, fmt.Errorf(`%w: slow takes an optional argument "ms", a number of milliseconds of 0 or more`, errArgumentsMisfit)
	}
	wait := rc.srv.opts.SlowBound
	if a.MS != nil && *a.MS < int64(wait/time.Millisecond) {
		wait = time.Duration(*a.MS) * time.Millisecond
	}
	if err := rc.Progress(0, 0, "waiting to be cancelled"); err != nil {
		return mcp.CallToolResult{}, err
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return TextResult(fmt.Sprintf("waited %v without being cancelled", wait)), nil
	case <-rc.Context().Done():
		return mcp.CallToolResult{}, fmt.Errorf("stopped waiting: %w", context.Cause(rc.Context()))
	}
}

// progressSteps reports progress 1 … steps of steps (CX-03), then tries to
// report the last step again, which the request context refuses (PR-03).
func progressSteps(rc *RequestContext, args json.RawMessage) (mcp.CallToolResult, error) {
	a := struct {
		Steps int `json:"steps"`
	}{Steps: 3}
	if err := decodeArgs(args, &a); err != nil || a.Steps < 1 || a.Steps > 1000 {
		return mcp.CallToolResult{}, fmt.Errorf(`%w: progress takes an optional argument "steps" from 1 to 1000`, errArgumentsMisfit)
	}
	total := float64(a.Steps)
	for i := 1; i <= a.Steps; i++ {
		if err := rc.Context().Err(); err != nil {
			return mcp.CallToolResult{}, fmt.Errorf("stopped at step %d: %w", i, context.Cause(rc.Context()))
		}
		if err := rc.Progress(float64(i), total, fmt.Sprintf("step %d of %d", i, a.Steps)); err != nil {
			return mcp.CallToolResult{}, err
		}
	}
	// A handler that reports its last step twice: the repeat is not sent.
	_ = rc.Progress(total, total, "done")
	return TextResult(fmt.Sprintf("reported %d steps", a.Steps)), nil
}

// logEveryLevel logs one message at each level, least severe first (CX-02).
func logEveryLevel(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	for _, level := range logLevels {
		if err := rc.Log(level, serverLogger, "a "+level+" message"); err != nil {
			return mcp.CallToolResult{}, err
		}
	}
	return TextResult("logged one message at each of the eight levels"), nil
}

// listRoots asks the client for its roots (CX-07).
func listRoots(rc *RequestContext, _ json.RawMessage) (mcp.CallToolResult, error) {
	roots, err := rc.Roots()
	if err != nil {
		return mcp.CallToolResult{}, err
	}
	lines := make([]string, len(roots))
	for i, r := range roots {
		lines[i] = r.URI
		if r.Name != "" {
			lines[i] += " (" + r.Name + ")"
		}
	}
	return TextResult(fmt.Sprintf("%d roots: %s", len(roots), strings.Join(lines, ", "))), nil
}

// defaultElicitURL is where elicit_url sends the user without a url argument.
const defaultElicitURL = "https://example.com/mcpconform/consent"

// elicitURL asks the user to visit a URL (CX-06, URL mode). A decline or
// cancel is the user's answer, reported as such.
func elicitURL(rc *RequestContext, args json.RawMessage) (mcp.CallToolResult, error) {
	a := struct {
		URL     string `json:"url"`
		Message string `json:"message"`
	}{URL: defaultElicitURL, Message: "Open the page to continue."}
	if err := decodeArgs(args, &a); err != nil {
		return mcp.CallToolResult{}, err
	}
	res, err := rc.Elicit(ElicitParams{Mode: "url", Message: a.Message, URL: a.URL, ElicitationID: "mcpconform-" + strings.Trim(rc.ID().String(), `"`)})
	if err != nil && !errors.Is(err, ErrDeclined) && !errors.Is(err, ErrDismissed) {
		return mcp.CallToolResult{}, err
	}
	return TextResult("User response: action=" + res.Action), nil
}
