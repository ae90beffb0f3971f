package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpconform/mcpconform/harness/jsonrpc"
	"github.com/mcpconform/mcpconform/harness/mcp"
)

// tasksParams are the params of a 2026-07-28 request whose _meta declares
// caps (a JSON object text), with extra fields.
func tasksParams(caps, extra string) string {
	return fmt.Sprintf(`{"_meta":{%q:%q,%q:%s},%s}`, mcp.MetaProtocolVersion, mcp.ModernVersion, mcp.MetaClientCapabilities, caps, extra)
}

// withTasks declares the tasks extension and elicitation.
var withTasks = fmt.Sprintf(`{"elicitation":{},"extensions":{%q:{}}}`, TasksExtension)

// taskView is a CreateTaskResult or a DetailedTask.
type taskView struct {
	ResultType    string                     `json:"resultType"`
	TaskID        string                     `json:"taskId"`
	Status        string                     `json:"status"`
	TTLMs         int64                      `json:"ttlMs"`
	Result        *mcp.CallToolResult        `json:"result"`
	Error         *jsonrpc.Error             `json:"error"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
}

// taskOf decodes the task a response carries.
func taskOf(t *testing.T, resp *jsonrpc.Message) taskView {
	t.Helper()
	wantServerResult(t, resp)
	var v taskView
	if err := json.Unmarshal(resp.Result, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// getTask asks tasks/get once the task's work is idle.
func getTask(t *testing.T, p *peer, id string) taskView {
	t.Helper()
	synctest.Wait()
	return taskOf(t, p.call("tasks/get", tasksParams(withTasks, fmt.Sprintf(`"taskId":%q`, id))))
}

func TestTasksRunToTheirEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeerWith(t, Options{Tasks: true})
		disc := p.call(mcp.MethodDiscover, modernParams(mcp.ModernVersion, ""))
		wantServerResult(t, disc, TasksExtension)
		for _, tc := range []struct{ tool, args, status string }{
			{"slow_compute", `{"seconds":1}`, taskCompleted},
			{"failing_job", `{}`, taskCompleted},
			{"protocol_error_job", `{}`, taskFailed},
		} {
			created := taskOf(t, p.call("tools/call", tasksParams(withTasks, fmt.Sprintf(`"name":%q,"arguments":%s`, tc.tool, tc.args))))
			if created.ResultType != "task" || created.TaskID == "" || created.Status != taskWorking || created.TTLMs <= 0 {
				t.Fatalf("%s created %+v, want a working task", tc.tool, created)
			}
			time.Sleep(2 * time.Second)
			got := getTask(t, p, created.TaskID)
			if got.Status != tc.status || (tc.status == taskCompleted) != (got.Result != nil) || (tc.status == taskFailed) != (got.Error != nil) {
				t.Errorf("%s ended %+v, want %s with its result or error", tc.tool, got, tc.status)
			}
			if tc.tool == "failing_job" && !got.Result.IsError {
				t.Errorf("failing_job's result %+v lacks isError", got.Result)
			}
		}
	})
}

func TestTasksNeedTheExtension(t *testing.T) {
	p := newPeerWith(t, Options{Tasks: true})
	sync := taskOf(t, p.call("tools/call", tasksParams(`{}`, `"name":"slow_compute","arguments":{"seconds":0}`)))
	if sync.ResultType != "complete" || sync.TaskID != "" {
		t.Errorf("slow_compute without the extension answered %+v, want its result at once", sync)
	}
	resp := p.call("tools/call", tasksParams(`{}`, `"name":"failing_job","arguments":{}`))
	wantServerError(t, resp, jsonrpc.CodeMissingClientCapability)
	if !strings.Contains(string(resp.Error.Data), TasksExtension) {
		t.Errorf("-32021 data %s does not name %s", resp.Error.Data, TasksExtension)
	}
	wantServerError(t, p.call("tasks/get", tasksParams(`{}`, `"taskId":"x"`)), jsonrpc.CodeMissingClientCapability)
	wantServerError(t, p.call("tasks/get", tasksParams(withTasks, `"taskId":"x"`)), jsonrpc.CodeInvalidParams)
	for _, method := range []string{"tasks/result", "tasks/list"} {
		wantServerError(t, p.call(method, tasksParams(withTasks, `"taskId":"x"`)), jsonrpc.CodeMethodNotFound)
	}
	// Without the option the extension is not served.
	q := newPeer(t, "")
	wantServerError(t, q.call("tasks/get", tasksParams(withTasks, `"taskId":"x"`)), jsonrpc.CodeMethodNotFound)
}

func TestTaskInputAndCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeerWith(t, Options{Tasks: true})
		created := taskOf(t, p.call("tools/call", tasksParams(withTasks, `"name":"multi_input","arguments":{}`)))
		parked := getTask(t, p, created.TaskID)
		if parked.Status != taskInputRequired || len(parked.InputRequests) != 2 {
			t.Fatalf("multi_input parked as %+v, want input_required with two requests", parked)
		}
		update := func(key string) {
			ack := p.call("tasks/update", tasksParams(withTasks, fmt.Sprintf(`"taskId":%q,"inputResponses":{%q:{"action":"accept","content":{"confirm":true}},"unknown":{}}`, created.TaskID, key)))
			wantServerResult(t, ack, `"resultType":"complete"`)
		}
		update("first")
		if half := getTask(t, p, created.TaskID); half.Status != taskInputRequired || len(half.InputRequests) != 1 || half.InputRequests["second"] == nil {
			t.Fatalf("after one answer %+v, want input_required waiting for second", half)
		}
		update("second")
		if done := getTask(t, p, created.TaskID); done.Status != taskCompleted || !strings.Contains(textOf(*done.Result), "first: true, second: true") {
			t.Fatalf("after both answers %+v", done)
		}

		slow := taskOf(t, p.call("tools/call", tasksParams(withTasks, `"name":"slow_compute","arguments":{"seconds":60}`)))
		wantServerResult(t, p.call("tasks/cancel", tasksParams(withTasks, fmt.Sprintf(`"taskId":%q`, slow.TaskID))), `"resultType":"complete"`)
		if got := getTask(t, p, slow.TaskID); got.Status != taskCancelled {
			t.Fatalf("cancelled task %+v", got)
		}
		// Cancelling a finished task changes nothing and is acknowledged.
		wantServerResult(t, p.call("tasks/cancel", tasksParams(withTasks, fmt.Sprintf(`"taskId":%q`, created.TaskID))))
		if got := getTask(t, p, created.TaskID); got.Status != taskCompleted {
			t.Fatalf("a finished task cancelled became %s", got.Status)
		}
	})
}

func TestTaskAfterAnInputRequiredResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeerWith(t, Options{Tasks: true})
		first := p.call("tools/call", tasksParams(withTasks, `"name":"test_tool_with_task","arguments":{}`))
		wantServerResult(t, first, `"resultType":"input_required"`, `"user_name"`)
		second := taskOf(t, p.call("tools/call", tasksParams(withTasks,
			`"name":"test_tool_with_task","arguments":{},"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}}`)))
		if second.ResultType != "task" {
			t.Fatalf("second round %+v, want a task", second)
		}
		if got := getTask(t, p, second.TaskID); got.Status != taskCompleted || textOf(*got.Result) != "Hello, Alice!" {
			t.Fatalf("task %+v", got)
		}
		// Asking for input needs the client's elicitation capability.
		wantServerError(t, p.call("tools/call", tasksParams(fmt.Sprintf(`{"extensions":{%q:{}}}`, TasksExtension), `"name":"confirm_delete","arguments":{}`)),
			jsonrpc.CodeMissingClientCapability)
	})
}
