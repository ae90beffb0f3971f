package fuzz

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
)

// The cancel oracle: no response after a cancel took effect.
//
// The rules. On receipt of notifications/cancelled the receiver SHOULD
// stop the work and send no response for the cancelled request (CN-04); it
// MAY ignore a cancel for a request that is unknown, finished, or that
// cannot be stopped (CN-05); both sides MUST cope with a cancel crossing
// a response (CN-07). So a response to a cancelled request is no breach
// in itself: it may have been on its way when the cancel came (a race),
// the request may have been refused at once, or the server may have let
// the work run to its end. The seed rule CX-04 (hardened, MUST) asks the
// same of a server's request context: a cancelled request gets no
// response.
//
// What the fuzzer can know. A response is a breach only when the server
// produced it after the cancel reached it and stopped the work. The
// executor judges a response to request X when all of these hold:
//
//  1. X calls a tool the fixtures name slow (SlowTools): by the fixture's
//     promise it answers only when cancelled, or after long. So X cannot
//     finish by itself within the few round trips judged here.
//  2. Before the cancel went out, the server showed X running: a progress
//     notification for X's progressToken arrived, and no answer to X. So
//     X was not refused (a refusal comes without progress), and its
//     answer was not on its way (X was unanswered and could not finish).
//  3. The response arrives before the cancel's group of frames ends: the
//     answers to the requests sent with or after the cancel, and to the
//     probe ping after them, are in (Wait). The window is a few round
//     trips, far shorter than a slow tool's "long", so a server that
//     ignores the cancel (CN-05) answers X only after the window: then
//     its answer is a late one, allowed once, never judged. (So is any
//     answer after the window: a server whose handler answers the
//     cancelled call itself races the probe's answer, and is found only
//     when it comes first. The planted bug writes its answer before the
//     next one, in the same write, so it is found every time.)
//
// Under those conditions the response cannot be X's natural end, a
// refusal or a response crossing the cancel: the server ended X because
// of the cancel and answered it anyway. That breaks CN-04 (SHOULD: a
// warning under --profile spec) and CX-04 (MUST under --profile
// hardened: a finding). Nothing depends on timing luck: a server that
// never answers a cancelled request is never judged, whatever the load,
// and the order the executor waits in (progress, then the cancel, then
// the answers) is recorded in the case (send-until-progress,
// send-nowait), so a replay judges the same. A slow tool that reports no
// progress leaves its cancels unjudged (the run's discovery finds that
// out once, so its calls do not wait for progress).

// progressed marks the request whose progressToken a progress
// notification names as running, until it is answered. An id the run
// sent more than once (or found in a damaged frame) is never marked: an
// answer with it need not be that request's.
func (r *run) progressed(params json.RawMessage) {
	token, ok := progressToken(params)
	if !ok {
		return
	}
	if key, ok := r.tokens[token]; ok {
		if a := r.acct[key]; a != nil && a.got == 0 && a.max == 1 {
			r.running[key] = true
		}
	}
}

// answeredAfterCancel judges response m to a slow call a whose cancel
// went out while it ran, before the cancel's group ended: a SHOULD break
// (CN-04) under --profile spec, a MUST one (CX-04) under hardened. true
// means a MUST break ended the run.
func (r *run) answeredAfterCancel(a *account, m *jsonrpc.Message) bool {
	what := "a result"
	if m.Kind() == jsonrpc.KindError {
		what = fmt.Sprintf("error %d", m.Error.Code)
	}
	detail := fmt.Sprintf("%s was answered with %s after its notifications/cancelled went out, while it ran (the server had reported its progress and could not have finished the slow tool by itself) and before the answers to the requests sent after the cancel were in: the server stopped it and answered it anyway; a cancelled request gets no response", a.what, what)
	if r.opt.SpecOnly {
		r.warn(NoResponseAfterCancel, detail+" (CN-04, SHOULD)")
		return false
	}
	r.fail(NoResponseAfterCancel, "answered", detail+" (CN-04; CX-04, MUST under --profile hardened)")
	return true
}

// quietSlowTools calls each slow tool of tools once with a progressToken,
// waits for its progress, and cancels it: the tools that report none
// within quietBound (or that answer at once) are quiet, and the run's
// calls of them do not wait for progress (a wait that would cost the
// timeout each time and judge nothing). id numbers the requests.
func (r *run) quietSlowTools(id *int64, tools []Tool) map[string]bool {
	quiet := map[string]bool{}
	for _, t := range tools {
		if !t.Slow {
			continue
		}
		token := fmt.Sprintf("mcpconform-discovery-%d", *id)
		call := message(*id, "tools/call", map[string]any{"name": t.Name, "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": token}})
		key := fmt.Sprint(*id)
		*id++
		if r.transport == "http" {
			// Its exchange lasts as long as the call where the server
			// answers with application/json: it goes on beside the wait.
			go func() { _, _ = r.c.send(Frame{Body: call}) }()
		} else if _, err := r.c.send(Frame{Body: call}); err != nil {
			quiet[t.Name] = true
			continue
		}
		quiet[t.Name] = !r.showsProgress(key, idKey([]byte(`"`+token+`"`)))
		_, _ = r.c.send(Frame{Body: message(nil, "notifications/cancelled", map[string]any{"requestId": json.RawMessage(key), "reason": "mcpconform fuzz discovery"})})
	}
	return quiet
}

// quietBound is how long the discovery waits for a slow tool's first
// progress: generous, once a run, so that a loaded machine does not
// make a tool that reports progress look quiet.
func (r *run) quietBound() time.Duration { return max(4*r.opt.timeout(), StartupGrace) }

// showsProgress waits for a progress notification with token (true), or
// the answer to the request key, or the end of quietBound (false).
func (r *run) showsProgress(key, token string) bool {
	deadline := time.NewTimer(r.quietBound())
	defer deadline.Stop()
	for {
		select {
		case m, ok := <-r.c.messages():
			if !ok {
				return false
			}
			switch {
			case m.Kind() == jsonrpc.KindNotification && m.Method == "notifications/progress":
				if t, ok := progressToken(m.Params); ok && t == token {
					return true
				}
			case m.Kind() == jsonrpc.KindRequest:
				r.answer(m)
			case (m.Kind() == jsonrpc.KindResult || m.Kind() == jsonrpc.KindError) && m.ID.Key() == key:
				return false
			}
		case <-deadline.C:
			return false
		}
	}
}

// calledSlow are the slow tools that frames call: what a case needs to be
// judged again.
func calledSlow(frames []Frame, slow []string) []string {
	var out []string
	for _, f := range frames {
		m, err := jsonrpc.Decode(f.Body)
		if err != nil {
			continue
		}
		if t := toolOf(m); t != "" && slices.Contains(slow, t) && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
