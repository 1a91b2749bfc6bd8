package httpapi

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/loci-memory/loci"
)

// The mem0 door's filters (mem0.go): mem0's filter language and scope
// fields translated into loci's filter language (loci.MemoryFilter) where
// they map, refused (400, naming what does not map) where they do not.

// mem0Common checks the options search and get all share, and returns
// the filter they make in loci's language (nil for none).
func mem0Common(filters, metadata json.RawMessage, categories []string, latestOnly, showExpired *bool) (*mem0Query, error) {
	var parts []any
	if f, err := translateMem0Filters(filters); err != nil {
		return nil, err
	} else if f != nil {
		parts = append(parts, f)
	}
	if m := bytes.TrimSpace(metadata); len(m) > 0 && string(m) != "null" {
		var v any
		if err := unmarshalNumbers(m, &v); err != nil {
			return nil, loci.Errorf(loci.EINVALID, "metadata must be an object")
		}
		f, err := mem0Field("metadata", v)
		if err != nil {
			return nil, err
		}
		parts = append(parts, f)
	}
	if len(categories) > 0 {
		parts = append(parts, map[string]any{"category": map[string]any{"in": categories}})
	}
	if latestOnly != nil && !*latestOnly {
		return nil, loci.Errorf(loci.EINVALID, "latest_only false is not supported: loci answers what is current (history: GET /v1/memories/{id}/history/)")
	}
	if showExpired != nil && *showExpired {
		return nil, loci.Errorf(loci.EINVALID, "show_expired is not supported: an expired memory is answered nowhere")
	}
	q := &mem0Query{}
	switch len(parts) {
	case 0:
		return q, nil
	case 1:
		q.filter = parts[0]
	default:
		q.filter = map[string]any{"and": parts}
	}
	raw, err := json.Marshal(q.filter)
	if err != nil {
		return nil, loci.Errorf(loci.EINVALID, "filters: %v", err)
	}
	if q.parsed, err = loci.ParseMemoryFilter(raw); err != nil {
		return nil, loci.Errorf(loci.ErrorCode(err), "filters: %s", loci.ErrorMessage(err))
	}
	q.raw = raw
	q.scope = liftScope(q.filter)
	return q, nil
}

// mem0Query is a search's or listing's selection in loci's terms.
type mem0Query struct {
	filter any
	raw    json.RawMessage
	parsed *loci.MemoryFilter
	scope  loci.Scope
}

// liftScope returns the user, agent and session that the filter requires
// by equality at its top, so that the read is scoped by them (as a key
// bound to an agent needs); the filter still holds them.
func liftScope(f any) loci.Scope {
	var sc loci.Scope
	var leaves []any
	if m, ok := f.(map[string]any); ok {
		if and, ok := m["and"].([]any); ok && len(m) == 1 {
			leaves = and
		} else {
			leaves = []any{m}
		}
	}
	for _, l := range leaves {
		m, ok := l.(map[string]any)
		if !ok || len(m) != 1 {
			continue
		}
		for k, v := range m {
			if op, ok := v.(map[string]any); ok && len(op) == 1 {
				v = op["eq"]
			}
			s, ok := v.(string)
			if !ok {
				continue
			}
			switch k {
			case "user_id":
				sc.UserID = s
			case "agent_id":
				sc.AgentID = s
			case "session_id":
				sc.SessionID = s
			}
		}
	}
	return sc
}

func unmarshalNumbers(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

// translateMem0Filters translates mem0's filters ({"AND": [...]},
// {"OR": [...]}, {"NOT": ...}, {"user_id": "u"}, {"created_at": {"gte":
// "2024-07-01"}}, {"categories": {"in": [...]}}, {"metadata": {"k": v}})
// into loci's filter language; nil for none.
func translateMem0Filters(raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var v any
	if err := unmarshalNumbers(raw, &v); err != nil {
		return nil, loci.Errorf(loci.EINVALID, "filters must be a JSON object")
	}
	f, err := mem0Node(v, 0)
	if err != nil {
		return nil, err
	}
	if m, ok := f.(map[string]any); ok && len(m) == 0 {
		return nil, nil
	}
	return f, nil
}

func mem0Node(v any, depth int) (any, error) {
	if depth > loci.MaxFilterDepth {
		return nil, loci.Errorf(loci.EINVALID, "filters nest at most %d deep", loci.MaxFilterDepth)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, loci.Errorf(loci.EINVALID, "filters: a filter must be a JSON object")
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []any
	for _, name := range names {
		val := obj[name]
		switch strings.ToUpper(name) {
		case "AND", "OR", "NOT":
			list, isList := val.([]any)
			if !isList {
				if strings.ToUpper(name) != "NOT" {
					return nil, loci.Errorf(loci.EINVALID, "filters: %s takes an array of filters", name)
				}
				list = []any{val}
			}
			if len(list) == 0 {
				return nil, loci.Errorf(loci.EINVALID, "filters: %s takes a non-empty array of filters", name)
			}
			subs := make([]any, len(list))
			for i, e := range list {
				sub, err := mem0Node(e, depth+1)
				if err != nil {
					return nil, err
				}
				subs[i] = sub
			}
			switch strings.ToUpper(name) {
			case "AND":
				parts = append(parts, map[string]any{"and": subs})
			case "OR":
				parts = append(parts, map[string]any{"or": subs})
			default:
				if len(subs) == 1 {
					parts = append(parts, map[string]any{"not": subs[0]})
				} else {
					parts = append(parts, map[string]any{"not": map[string]any{"and": subs}})
				}
			}
		default:
			f, err := mem0Field(name, val)
			if err != nil {
				return nil, err
			}
			parts = append(parts, f)
		}
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return map[string]any{"and": parts}, nil
}

// mem0Ops maps mem0's filter operators to loci's.
var mem0Ops = map[string]string{"eq": "eq", "ne": "ne", "in": "in", "nin": "nin", "gt": "gt", "gte": "gte", "lt": "lt", "lte": "lte", "contains": "contains"}

var dateOnlyRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// mem0Field translates the condition on one of mem0's fields.
func mem0Field(name string, val any) (any, error) {
	switch name {
	case "user_id", "agent_id", "created_at", "updated_at":
		return mem0Leaf(name, name, val)
	case "run_id":
		return mem0Leaf("run_id", "session_id", val)
	case "categories":
		// A memory has one category in loci: contains/eq name it, in lists them.
		if ops, ok := val.(map[string]any); ok {
			if c, ok := ops["contains"]; ok && len(ops) == 1 {
				val = c
			}
		}
		return mem0Leaf("categories", "category", val)
	case "metadata":
		obj, ok := val.(map[string]any)
		if !ok || len(obj) == 0 {
			return nil, loci.Errorf(loci.EINVALID, `filters: metadata takes an object of keys and values ({"metadata": {"topic": "food"}})`)
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []any
		for _, k := range keys {
			leaf, err := mem0Leaf("metadata."+k, "metadata."+k, obj[k])
			if err != nil {
				return nil, err
			}
			parts = append(parts, leaf)
		}
		if len(parts) == 1 {
			return parts[0], nil
		}
		return map[string]any{"and": parts}, nil
	case "app_id":
		return nil, errMem0AppID()
	}
	return nil, loci.Errorf(loci.EINVALID, "filters: the field %q does not map to loci; loci's mem0 door filters on user_id, agent_id, run_id, created_at, updated_at, categories and metadata", name)
}

// mem0Leaf translates one field's value or operators.
func mem0Leaf(name, field string, val any) (any, error) {
	conv := func(v any) (any, error) {
		if s, ok := v.(string); ok {
			if s == "*" {
				return nil, loci.Errorf(loci.EINVALID, "filters: %s: the wildcard \"*\" is not supported; leave the field out to match any", name)
			}
			if (field == "created_at" || field == "updated_at") && dateOnlyRE.MatchString(s) {
				return s + "T00:00:00Z", nil
			}
		}
		if list, ok := v.([]any); ok {
			out := make([]any, len(list))
			for i, e := range list {
				c, err := convScalar(name, field, e)
				if err != nil {
					return nil, err
				}
				out[i] = c
			}
			return out, nil
		}
		return v, nil
	}
	ops, isOps := val.(map[string]any)
	if !isOps {
		v, err := conv(val)
		if err != nil {
			return nil, err
		}
		return map[string]any{field: v}, nil
	}
	out := map[string]any{}
	for op, v := range ops {
		lop, ok := mem0Ops[op]
		if !ok {
			if op == "icontains" {
				return nil, loci.Errorf(loci.EINVALID, "filters: %s: icontains is not supported; loci filters match exactly (use search for text)", name)
			}
			return nil, loci.Errorf(loci.EINVALID, "filters: %s: unknown operator %q; loci's mem0 door takes %s", name, op, strings.Join(slices.Sorted(mapKeys(mem0Ops)), ", "))
		}
		c, err := conv(v)
		if err != nil {
			return nil, err
		}
		out[lop] = c
	}
	return map[string]any{field: out}, nil
}

func convScalar(name, field string, v any) (any, error) {
	if s, ok := v.(string); ok {
		if s == "*" {
			return nil, loci.Errorf(loci.EINVALID, "filters: %s: the wildcard \"*\" is not supported; leave the field out to match any", name)
		}
		if (field == "created_at" || field == "updated_at") && dateOnlyRE.MatchString(s) {
			return s + "T00:00:00Z", nil
		}
	}
	return v, nil
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
