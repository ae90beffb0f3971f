package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// The tasks extension of 2026-07-28 (SEP-2663, TK-11), served when
// Options.Tasks is set: a tools/call of a task-supporting tool, from a
// request whose _meta declares the extension, is answered at once with a
// CreateTaskResult; the client polls tasks/get (whose DetailedTask inlines
// the tool's result, its error or the input it waits for), answers input
// with tasks/update and stops the task with tasks/cancel.

// TasksExtension is the extension's identifier in capabilities.extensions.
const TasksExtension = "io.modelcontextprotocol/tasks"

// Limits of the tasks: how long one is kept (its ttlMs; a task still
// running then fails), how often a client should poll, how many are kept.
const (
	taskTTL          = 5 * time.Minute
	taskPollInterval = 100 * time.Millisecond
	maxTasks         = 1024
)

// Task statuses (TK-04).
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// taskWork is what a task-supporting tool does. ask parks the task in
// input_required with requests (keyed) until tasks/update answered each; a
// tool run without a task gets nil and must not ask. A *jsonrpc.Error is
// a protocol error (the task fails); a result with isError is the tool's
// own failure (the task completes).
type taskWork func(ctx context.Context, ask asker, args json.RawMessage) (mcp.CallToolResult, *jsonrpc.Error)

// asker parks a task until its input requests are answered.
type asker func(ctx context.Context, requests map[string]any) (map[string]json.RawMessage, error)

// taskTool is a tool of the extension. Its support says how it runs: only
// synchronously ("forbidden"), as a task when the request declares the
// extension ("optional"), or only as a task ("required": a request without
// the extension gets -32021).
type taskTool struct {
	mcp.Tool
	support string
	work    taskWork
	// needs is the client capability the tool's input requests need, ""
	// for none (MR-04).
	needs string
	// gather is the input the tool first asks for with an
	// InputRequiredResult, before it runs as a task with the answer as
	// its argument of that name (SEP-2322 then SEP-2663); "" for none.
	gather string
}

// taskTools are the tools of the official suite's tasks scenarios.
var taskTools = []taskTool{
	{tool("greet", "Answers Hello, {name}! at once; never runs as a task.",
		schema(`{"type":"object","properties":{"name":{"type":"string"}}}`)), "forbidden", greet, "", ""},
	{tool("slow_compute", "Waits seconds (bounded by the server's slow bound), then answers; runs as a task when the request declares the tasks extension.",
		schema(`{"type":"object","properties":{"seconds":{"type":"number","minimum":0},"label":{"type":"string"}}}`)), "optional", slowCompute, "", ""},
	{tool("failing_job", "Runs only as a task, which completes with a tool error (isError).", noArguments), "required", failingJob, "", ""},
	{tool("protocol_error_job", "Runs only as a task, which fails with a protocol error.", noArguments), "required", protocolErrorJob, "", ""},
	{tool("confirm_delete", "Runs only as a task: asks the user (elicitation) whether to delete filename, then answers what was decided; nothing is deleted.",
		schema(`{"type":"object","properties":{"filename":{"type":"string"}}}`)), "required", confirmDelete, "elicitation", ""},
	{tool("multi_input", "Runs only as a task: asks the user two questions at once (elicitation), then answers both.", noArguments), "required", multiInput, "elicitation", ""},
	{tool("test_tool_with_task", "Asks the user's name with an InputRequiredResult (elicitation), then runs as a task that greets them.", noArguments), "required", greetUser, "elicitation", "user_name"},
}

// userNameForm is the input test_tool_with_task gathers first.
var userNameForm = map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "form", "message": "What is your name?",
	"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []string{"name"}}}}

// greetUser greets the user whose elicitation answer is its user_name
// argument.
func greetUser(_ context.Context, _ asker, args json.RawMessage) (mcp.CallToolResult, *jsonrpc.Error) {
	var a struct {
		UserName struct {
			Content struct {
				Name string `json:"name"`
			} `json:"content"`
		} `json:"user_name"`
	}
	if err := decodeArgs(args, &a); err != nil || a.UserName.Content.Name == "" {
		return ErrorResult("test_tool_with_task got no name in its user_name answer"), nil
	}
	return TextResult("Hello, " + a.UserName.Content.Name + "!"), nil
}

func greet(_ context.Context, _ asker, args json.RawMessage) (mcp.CallToolResult, *jsonrpc.Error) {
	a := struct {
		Name string `json:"name"`
	}{Name: "World"}
	if err := decodeArgs(args, &a); err != nil {
		return ErrorResult(err.Error()), nil
	}
	return TextResult("Hello, " + a.Name + "!"), nil
}

// slowCompute waits seconds, at most the server's SlowBound, or until it
// is stopped.
func slowCompute(ctx context.Context, _ asker, args json.RawMessage) (mcp.CallToolResult, *jsonrpc.Error) {
	var a struct {
		Seconds float64 `json:"seconds"`
		Label   string  `json:"label"`
	}
	if err := decodeArgs(args, &a); err != nil || a.Seconds < 0 {
		return ErrorResult(`slow_compute takes "seconds", a number of 0 or more, and an optional "label"`), nil
	}
	bound, _ := ctx.Value(slowBoundKey{}).(time.Duration)
	wait := min(time.Duration(a.Seconds*float64(time.Second)), bound)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return TextResult(fmt.Sprintf("computed %q after %v", a.Label, wait)), nil
	case <-ctx.Done():
		return mcp.CallToolResult{}, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("slow_compute stopped: %v", context.Cause(ctx))}
	}
}

// slowBoundKey carries the server's SlowBound to slowCompute.
type slowBoundKey struct{}

func failingJob(context.Context, asker, json.RawMessage) (mcp.CallToolResult, *jsonrpc.Error) {
	return ErrorResult("failing_job always fails: this is the tool's own error"), nil
}

func protocolErrorJob(context.Context, asker, json.RawMessage) (mcp.CallToolResult, *jsonrpc.Error) {
	return mcp.CallToolResult{}, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "protocol_error_job always fails with a protocol error"}
}

// taskConfirmRequest is the elicitation confirm_delete and multi_input ask
// for.
func taskConfirmRequest(message string) map[string]any {
	return map[string]any{"method": "elicitation/create", "params": map[string]any{"mode": "form", "message": message,
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"confirm": map[string]any{"type": "boolean"}}, "required": []string{"confirm"}}}}
}

// accepted reads an elicitation answer: whether the user accepted with
// confirm true.
func accepted(answer json.RawMessage) bool {
	var r struct {
		Action  string `json:"action"`
		Content struct {
			Confirm bool `json:"confirm"`
		} `json:"content"`
	}
	return json.Unmarshal(answer, &r) == nil && r.Action == "accept" && r.Content.Confirm
}

func confirmDelete(ctx context.Context, ask asker, args json.RawMessage) (mcp.CallToolResult, *jsonrpc.Error) {
	a := struct {
		Filename string `json:"filename"`
	}{Filename: "file.txt"}
	if err := decodeArgs(args, &a); err != nil {
		return ErrorResult(err.Error()), nil
	}
	answers, err := ask(ctx, map[string]any{"confirm": taskConfirmRequest("Delete " + a.Filename + "?")})
	if err != nil {
		return mcp.CallToolResult{}, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	if accepted(answers["confirm"]) {
		return TextResult("confirmed the deletion of " + a.Filename + " (nothing was deleted)"), nil
	}
	return TextResult("kept " + a.Filename), nil
}

func multiInput(ctx context.Context, ask asker, _ json.RawMessage) (mcp.CallToolResult, *jsonrpc.Error) {
	answers, err := ask(ctx, map[string]any{"first": taskConfirmRequest("First question: go on?"), "second": taskConfirmRequest("Second question: go on?")})
	if err != nil {
		return mcp.CallToolResult{}, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return TextResult(fmt.Sprintf("first: %v, second: %v", accepted(answers["first"]), accepted(answers["second"]))), nil
}

// task is one task of the extension.
type task struct {
	id      string
	created time.Time
	stop    context.CancelCauseFunc

	mu       sync.Mutex
	status   string
	updated  time.Time
	result   any                        // the tool's result, once completed
	err      *jsonrpc.Error             // the protocol error, once failed
	pending  map[string]any             // input requests not answered yet
	answers  map[string]json.RawMessage // answers so far
	answered chan struct{}              // closed when pending empties
}

// taskStore holds the server's tasks. The zero value holds none.
type taskStore struct {
	mu    sync.Mutex
	tasks map[string]*task
}

// errTaskCancelled is the cause of a cancelled task's context.
var errTaskCancelled = fmt.Errorf("the client cancelled the task with tasks/cancel")

// start makes a task running work and returns it; false when maxTasks
// are kept and none of them expired.
func (st *taskStore) start(s *Server, work taskWork, args json.RawMessage) (*task, bool) {
	now := time.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	for id, t := range st.tasks {
		if t.expired(now) {
			delete(st.tasks, id)
		}
	}
	if len(st.tasks) >= maxTasks {
		return nil, false
	}
	base, stop := context.WithCancelCause(context.WithValue(context.Background(), slowBoundKey{}, s.opts.SlowBound))
	ctx, expire := context.WithTimeoutCause(base, taskTTL, fmt.Errorf("the task outlived its ttl of %v", taskTTL))
	t := &task{id: rand.Text(), created: now, updated: now, status: taskWorking, stop: stop}
	if st.tasks == nil {
		st.tasks = map[string]*task{}
	}
	st.tasks[t.id] = t
	go func() {
		defer expire()
		t.run(ctx, work, args)
	}()
	return t, true
}

// get finds a task that has not expired.
func (st *taskStore) get(id string) *task {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.tasks[id]
	if t == nil || t.expired(time.Now()) {
		return nil
	}
	return t
}

// expired reports whether a task outlived its ttl.
func (t *task) expired(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return now.Sub(t.created) > taskTTL
}

// run runs the work and records how it ended; a task cancelled meanwhile
// stays cancelled (TK-08).
func (t *task) run(ctx context.Context, work taskWork, args json.RawMessage) {
	res, rpcErr := work(ctx, t.ask, args)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status == taskCancelled {
		return
	}
	t.updated = time.Now()
	t.pending = nil
	if rpcErr != nil {
		t.status, t.err = taskFailed, rpcErr
		return
	}
	t.status, t.result = taskCompleted, res
}

// ask parks the task in input_required until every request is answered
// (tasks/update), the task is cancelled or it outlives its ttl.
func (t *task) ask(ctx context.Context, requests map[string]any) (map[string]json.RawMessage, error) {
	t.mu.Lock()
	t.status, t.updated = taskInputRequired, time.Now()
	t.pending, t.answers, t.answered = maps.Clone(requests), map[string]json.RawMessage{}, make(chan struct{})
	answered := t.answered
	t.mu.Unlock()
	select {
	case <-answered:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status == taskInputRequired {
		t.status, t.updated = taskWorking, time.Now()
	}
	return t.answers, nil
}

// update takes answers to pending input requests; others are ignored
// (MR-07).
func (t *task) update(answers map[string]json.RawMessage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status != taskInputRequired {
		return
	}
	for key, answer := range answers {
		if _, ok := t.pending[key]; ok {
			delete(t.pending, key)
			t.answers[key] = answer
		}
	}
	t.updated = time.Now()
	if len(t.pending) == 0 {
		close(t.answered)
		t.answered = nil
	}
}

// cancel moves a task that is not finished to cancelled before the reply
// goes out (TK-08) and stops its work; a finished task is left as it is.
func (t *task) cancel() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status == taskCompleted || t.status == taskFailed || t.status == taskCancelled {
		return
	}
	t.status, t.updated, t.pending = taskCancelled, time.Now(), nil
	t.stop(errTaskCancelled)
}

// info is the task's fields on the wire (CreateTaskResult, DetailedTask):
// with detail, its result, error or pending input.
func (t *task) info(detail bool) map[string]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := map[string]any{
		"taskId":         t.id,
		"status":         t.status,
		"createdAt":      t.created.UTC().Format(time.RFC3339Nano),
		"lastUpdatedAt":  t.updated.UTC().Format(time.RFC3339Nano),
		"ttlMs":          taskTTL.Milliseconds(),
		"pollIntervalMs": taskPollInterval.Milliseconds(),
	}
	switch {
	case !detail:
	case t.status == taskCompleted:
		m["result"] = t.result
	case t.status == taskFailed:
		m["error"] = t.err
	case t.status == taskInputRequired:
		m["inputRequests"] = maps.Clone(t.pending)
	}
	return m
}

// declaresTasks reports whether a request's _meta declares the extension.
func declaresTasks(params json.RawMessage) bool {
	meta, _ := mcp.ModernRequest(&jsonrpc.Message{Params: params})
	var c struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	_ = json.Unmarshal(meta.Capabilities, &c)
	v := c.Extensions[TasksExtension]
	return len(v) > 0 && v[0] == '{'
}

// missingTasks is the -32021 for a request that needs the extension
// without declaring it (SEP-2575, SEP-2663).
func missingTasks(what string) *jsonrpc.Error {
	return missing(map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}},
		fmt.Sprintf("%s needs the %s extension; declare it in _meta %s extensions", what, TasksExtension, mcp.MetaClientCapabilities))
}

// missing is a -32021 whose data names the capabilities required (JR-49).
func missing(required map[string]any, message string) *jsonrpc.Error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": required})
	return &jsonrpc.Error{Code: jsonrpc.CodeMissingClientCapability, Data: data, Message: message}
}

// findTaskTool finds a tool of the extension when the server serves it.
func (s *Server) findTaskTool(rc *RequestContext, name string) *taskTool {
	if !s.opts.Tasks || !rc.sess.modern {
		return nil
	}
	i := slices.IndexFunc(taskTools, func(t taskTool) bool { return t.Name == name })
	if i < 0 {
		return nil
	}
	return &taskTools[i]
}

// callTaskTool answers a tools/call of a tool of the extension: as a task
// when the tool supports one and the request declares the extension, at
// once when the tool never runs as a task or may run without one, and
// with -32021 when it runs only as a task and the request does not
// declare the extension. Input a task asks for needs the client's
// elicitation capability, declared on the request (MR-04, JR-49).
func (s *Server) callTaskTool(rc *RequestContext, t *taskTool, args, params json.RawMessage) (any, *jsonrpc.Error) {
	meta, _ := mcp.ModernRequest(&jsonrpc.Message{Params: params})
	asTask := t.support != "forbidden" && declaresTasks(params)
	switch {
	case t.support == "required" && !asTask:
		return nil, missingTasks("tool " + t.Name)
	case t.needs != "" && !declares(meta.Capabilities, t.needs):
		return nil, missing(map[string]any{t.needs: map[string]any{}},
			fmt.Sprintf("tool %s asks the client for input, which needs its %s capability; declare it in _meta %s", t.Name, t.needs, mcp.MetaClientCapabilities))
	case t.gather != "":
		var p struct {
			InputResponses map[string]json.RawMessage `json:"inputResponses"`
		}
		_ = mcp.DecodeParams(params, &p)
		answer, ok := p.InputResponses[t.gather]
		if !ok {
			return map[string]any{"resultType": "input_required", "inputRequests": map[string]any{t.gather: userNameForm}}, nil
		}
		args, _ = json.Marshal(map[string]json.RawMessage{t.gather: answer})
	case !asTask:
		ctx := context.WithValue(rc.Context(), slowBoundKey{}, s.opts.SlowBound)
		res, rpcErr := t.work(ctx, nil, args)
		if rpcErr != nil {
			return nil, rpcErr
		}
		return res, nil
	}
	task, ok := s.tasks.start(s, t.work, args)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the server holds %d tasks, its limit; cancel some or wait for them to expire", maxTasks)}
	}
	created := task.info(false)
	created["resultType"] = "task"
	return created, nil
}

// taskMethod finds the handler of a method of the extension when the
// server serves it; tasks/result and tasks/list are not methods of it.
func (s *Server) taskMethod(name string) (methodHandler, bool) {
	if !s.opts.Tasks {
		return nil, false
	}
	switch name {
	case "tasks/get":
		return s.taskRequest(name, func(t *task, _ json.RawMessage) any { return t.info(true) }), true
	case "tasks/update":
		return s.taskRequest(name, func(t *task, params json.RawMessage) any {
			var p struct {
				InputResponses map[string]json.RawMessage `json:"inputResponses"`
			}
			_ = mcp.DecodeParams(params, &p)
			t.update(p.InputResponses)
			return struct{}{}
		}), true
	case "tasks/cancel":
		return s.taskRequest(name, func(t *task, _ json.RawMessage) any {
			t.cancel()
			return struct{}{}
		}), true
	}
	return nil, false
}

// taskRequest is the handler of a request about one task: the request
// must declare the extension (-32021) and name a task the server has
// (-32602, TK-08).
func (s *Server) taskRequest(method string, answer func(t *task, params json.RawMessage) any) methodHandler {
	return func(_ *RequestContext, params json.RawMessage) (any, *jsonrpc.Error) {
		if !declaresTasks(params) {
			return nil, missingTasks(method)
		}
		var p struct {
			TaskID string `json:"taskId"`
		}
		if err := mcp.DecodeParams(params, &p); err != nil || p.TaskID == "" {
			return nil, mcp.InvalidParams(method + " needs params with a taskId")
		}
		t := s.tasks.get(p.TaskID)
		if t == nil {
			return nil, mcp.InvalidParams(fmt.Sprintf("no task %q: it never existed or outlived its ttl", p.TaskID))
		}
		return answer(t, params), nil
	}
}
