package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loci-memory/loci"
)

// The working memory tools (set_working, get_working). Working memory is the
// connection's agent's (and user's, when bound to one) within a task named by
// the task_id argument: a task id names a piece of work, not an identity.

// SetWorkingInput is the input of set_working.
type SetWorkingInput struct {
	TaskID string          `json:"task_id" jsonschema:"Id of the task (one execution, one piece of work) this scratchpad belongs to, e.g. fix-login-42. Required; at most 100 bytes. Use the same id for every call of the task."`
	Key    string          `json:"key" jsonschema:"Name of the value within the task, e.g. plan, progress, intermediate_results. Required; at most 100 bytes. Setting an existing key replaces its value."`
	Value  json.RawMessage `json:"value" jsonschema:"The value: any JSON (object, array, string, number, boolean), not null. Required."`
}

// SetWorkingOutput is the output of set_working.
type SetWorkingOutput struct {
	Success   bool      `json:"success" jsonschema:"true when the value was stored"`
	Action    string    `json:"action" jsonschema:"created for a new key, updated when a value was replaced"`
	TaskID    string    `json:"task_id" jsonschema:"the task"`
	Key       string    `json:"key" jsonschema:"the key stored"`
	UpdatedAt time.Time `json:"updated_at" jsonschema:"when it was stored (RFC 3339, UTC)"`
	ExpiresAt time.Time `json:"expires_at" jsonschema:"when it is deleted unless written again (24 hours after the last write)"`
}

// GetWorkingInput is the input of get_working.
type GetWorkingInput struct {
	TaskID string `json:"task_id" jsonschema:"Id of the task whose scratchpad to read. Required."`
	Key    string `json:"key,omitempty" jsonschema:"Key to read. Omit it to read every value of the task as one object."`
}

// GetWorkingOutput is the output of get_working: key, value, updated_at
// and expires_at for one key; count and values for the whole task.
type GetWorkingOutput struct {
	Success   bool           `json:"success" jsonschema:"true when the value was found"`
	TaskID    string         `json:"task_id" jsonschema:"the task"`
	Key       string         `json:"key,omitempty" jsonschema:"the key read (when a key was given)"`
	Value     any            `json:"value,omitempty" jsonschema:"the stored JSON value (when a key was given)"`
	UpdatedAt *time.Time     `json:"updated_at,omitempty" jsonschema:"when it was last written (when a key was given)"`
	ExpiresAt *time.Time     `json:"expires_at,omitempty" jsonschema:"when it expires (when a key was given)"`
	Count     *int           `json:"count,omitempty" jsonschema:"number of values of the task (when no key was given)"`
	Values    map[string]any `json:"values,omitzero" jsonschema:"every live value of the task, key to value (when no key was given)"`
}

var (
	setWorkingInputSchema  = inputSchemaOf[SetWorkingInput](nil)
	setWorkingOutputSchema = outputSchema[SetWorkingOutput](func(s *jsonschema.Schema) {
		s.Properties["action"].Enum = []any{loci.ActionCreated, loci.ActionUpdated}
	})
	getWorkingInputSchema  = inputSchemaOf[GetWorkingInput](nil)
	getWorkingOutputSchema = outputSchema[GetWorkingOutput](nil)
)

var _ = addTools(toolGroup{set: ToolsAll, add: (*server).workingTools})

// workingTools adds set_working and get_working.
func (s *server) workingTools() {
	addTool(s, loci.OpWorkingSet, &mcp.Tool{
		Name:  "set_working",
		Title: "Set working memory",
		Description: "Write a value to the scratchpad of the current task: your goal and sub-goals, the active plan and progress, intermediate results, tool outputs still to evaluate. " +
			"Values are per task (task_id) and per this connection's agent and user; setting a key again replaces its value. " +
			"They expire 24 hours after their last write, so keep lasting insights in store_fact or remember instead. " +
			"A task's values total at most 50 KB (51200 bytes of JSON, compact with strings as UTF-8, counting every agent on the task): a write past that is an error and changes nothing.",
		InputSchema:  setWorkingInputSchema,
		OutputSchema: setWorkingOutputSchema,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.setWorking)
	addTool(s, loci.OpWorkingGet, &mcp.Tool{
		Name:  "get_working",
		Title: "Get working memory",
		Description: "Read the scratchpad of a task written with set_working by this agent (and user). " +
			"With a key, returns that value; an unknown or expired key is an error \"working memory entry not found\". " +
			"Without a key, returns every live value of the task as one object (count and values). " +
			"Call it when you resume a task to pick up your plan and progress.",
		InputSchema:  getWorkingInputSchema,
		OutputSchema: getWorkingOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, s.getWorking)
}

func (s *server) workingFilter() loci.WorkingFilter {
	return loci.WorkingFilter{AgentID: s.id.AgentID, UserID: s.id.UserID}
}

func (s *server) setWorking(ctx context.Context, in SetWorkingInput) (*SetWorkingOutput, error) {
	e, created, err := s.WorkingService.SetWorking(ctx, loci.WorkingInput{
		TaskID: in.TaskID, AgentID: s.id.AgentID, UserID: s.id.UserID, Key: in.Key, Value: in.Value,
	})
	if err != nil {
		return nil, err
	}
	action := loci.ActionUpdated
	if created {
		action = loci.ActionCreated
	}
	return &SetWorkingOutput{
		Success: true, Action: action, TaskID: e.TaskID, Key: e.Key,
		UpdatedAt: utc(e.UpdatedAt), ExpiresAt: utc(e.ExpiresAt),
	}, nil
}

// ownWorking returns the task's live entries of exactly this connection's
// agent and user. (A filter with no user matches every user, so a
// connection without a user drops the entries written for one.)
func (s *server) ownWorking(ctx context.Context, taskID string) ([]*loci.WorkingEntry, error) {
	entries, err := s.WorkingService.ListWorking(ctx, taskID, s.workingFilter())
	if err != nil {
		return nil, err
	}
	own := entries[:0]
	for _, e := range entries {
		if e.AgentID == s.id.AgentID && e.UserID == s.id.UserID {
			own = append(own, e)
		}
	}
	return own, nil
}

func (s *server) getWorking(ctx context.Context, in GetWorkingInput) (*GetWorkingOutput, error) {
	if in.Key != "" {
		e, err := s.WorkingService.GetWorking(ctx, in.TaskID, in.Key, s.workingFilter())
		if err != nil {
			return nil, err
		}
		if e.UserID != s.id.UserID { // a user's entry, seen by a connection without a user
			entries, err := s.ownWorking(ctx, in.TaskID)
			if err != nil {
				return nil, err
			}
			e = nil
			for _, x := range entries {
				if x.Key == in.Key {
					e = x
					break
				}
			}
			if e == nil {
				return nil, loci.Errorf(loci.ENOTFOUND, "working memory entry not found")
			}
		}
		at, exp := utc(e.UpdatedAt), utc(e.ExpiresAt)
		return &GetWorkingOutput{Success: true, TaskID: e.TaskID, Key: e.Key, Value: jsonAny(e.Value), UpdatedAt: &at, ExpiresAt: &exp}, nil
	}
	entries, err := s.ownWorking(ctx, in.TaskID)
	if err != nil {
		return nil, err
	}
	values := map[string]any{}
	for _, e := range entries {
		if _, seen := values[e.Key]; !seen {
			values[e.Key] = jsonAny(e.Value)
		}
	}
	return &GetWorkingOutput{Success: true, TaskID: in.TaskID, Count: ptr(len(values)), Values: values}, nil
}
