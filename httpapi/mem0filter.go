package httpapi

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/loci-memory/loci"
)

// The mem0 API's filters (mem0.go): mem0's filter language and scope
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
	switch len(parts) {
	case 0:
		return map[string]any{}, nil // {}: always holds
	case 1:
		return parts[0], nil
	}
	return map[string]any{"and": parts}, nil
}

// mem0Ops maps mem0's filter operators to loci's.
var mem0Ops = map[string]string{"eq": "eq", "ne": "ne", "in": "in", "nin": "nin", "gt": "gt", "gte": "gte", "lt": "lt", "lte": "lte",
	"contains": "contains", "icontains": "icontains"}

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
		return mem0Metadata("metadata", obj)
	case "app_id":
		return nil, errMem0AppID()
	}
	if strings.HasPrefix(name, "metadata.") {
		return mem0Leaf(name, name, val)
	}
	return nil, loci.Errorf(loci.EINVALID, "filters: the field %q does not map to loci; loci's mem0 API filters on user_id, agent_id, run_id, created_at, updated_at, categories, metadata and metadata.PATH", name)
}

// mem0Metadata translates {"metadata": {…}}: each key's value, or
// operators; an object of keys that are not operators names nested
// values ({"food": {"kind": "veg"}} is metadata.food.kind).
func mem0Metadata(prefix string, obj map[string]any) (any, error) {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []any
	for _, k := range keys {
		field := prefix + "." + k
		var leaf any
		var err error
		if sub, ok := obj[k].(map[string]any); ok && len(sub) > 0 && !mem0Operators(sub) {
			leaf, err = mem0Metadata(field, sub)
		} else {
			leaf, err = mem0Leaf(field, field, obj[k])
		}
		if err != nil {
			return nil, err
		}
		parts = append(parts, leaf)
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	return map[string]any{"and": parts}, nil
}

// mem0Operators reports whether every key of obj is one of mem0's
// operators.
func mem0Operators(obj map[string]any) bool {
	for k := range obj {
		if _, ok := mem0Ops[k]; !ok {
			return false
		}
	}
	return true
}

// mem0Leaf translates one field's value or operators. Times are taken as
// loci's filters take them (RFC 3339 or a date).
func mem0Leaf(name, field string, val any) (any, error) {
	conv := func(v any) (any, error) {
		if list, ok := v.([]any); ok {
			for _, e := range list {
				if err := noWildcard(name, e); err != nil {
					return nil, err
				}
			}
			return v, nil
		}
		return v, noWildcard(name, v)
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
			return nil, loci.Errorf(loci.EINVALID, "filters: %s: unknown operator %q; loci's mem0 API takes %s", name, op, strings.Join(slices.Sorted(mapKeys(mem0Ops)), ", "))
		}
		c, err := conv(v)
		if err != nil {
			return nil, err
		}
		out[lop] = c
	}
	return map[string]any{field: out}, nil
}

// noWildcard refuses mem0's "*" (any value), which loci does not take.
func noWildcard(name string, v any) error {
	if s, ok := v.(string); ok && s == "*" {
		return loci.Errorf(loci.EINVALID, "filters: %s: the wildcard \"*\" is not supported; leave the field out to match any", name)
	}
	return nil
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
