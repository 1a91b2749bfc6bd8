package httpapi_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// schemaChecker checks JSON values against the schemas of an OpenAPI
// document: $ref, allOf, anyOf/oneOf, type, const, enum, required,
// properties, items and additionalProperties; and, in strict mode, that an
// object holds no property its schema does not document. It is small on
// purpose: enough to keep the document honest about real answers, not a
// general JSON Schema validator.
type schemaChecker struct {
	doc    map[string]any
	strict bool
}

// resolve follows a local reference ("#/components/schemas/Note").
func (c schemaChecker) resolve(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("reference %q is not local", ref)
	}
	var cur any = c.doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("reference %q: %q is not inside an object", ref, tok)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("reference %q: no %q", ref, tok)
		}
	}
	return cur, nil
}

// deref returns the schema a $ref schema points at (repeatedly).
func (c schemaChecker) deref(s map[string]any) (map[string]any, error) {
	for i := 0; i < 16; i++ {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s, nil
		}
		v, err := c.resolve(ref)
		if err != nil {
			return nil, err
		}
		if s, ok = v.(map[string]any); !ok {
			return nil, fmt.Errorf("reference %q is not a schema", ref)
		}
	}
	return nil, fmt.Errorf("reference cycle")
}

// check returns the problems of v against schema s, each prefixed by its
// location.
func (c schemaChecker) check(s map[string]any, v any, at string) []string {
	return c.checkPart(s, v, at, false)
}

// checkPart checks v against s; part is set for a member of an allOf,
// which sees only some of the object's properties.
func (c schemaChecker) checkPart(s map[string]any, v any, at string, part bool) []string {
	s, err := c.deref(s)
	if err != nil {
		return []string{at + ": " + err.Error()}
	}
	var probs []string
	if all, ok := s["allOf"].([]any); ok {
		for _, sub := range all {
			probs = append(probs, c.checkPart(sub.(map[string]any), v, at, true)...)
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[kw].([]any); ok {
			matched := false
			for _, sub := range alts {
				if len(c.checkPart(sub.(map[string]any), v, at, part)) == 0 {
					matched = true
					break
				}
			}
			if !matched {
				probs = append(probs, fmt.Sprintf("%s: matches none of %s", at, kw))
			}
		}
	}
	if want, ok := s["const"]; ok && !reflect.DeepEqual(want, v) {
		probs = append(probs, fmt.Sprintf("%s: = %v, want const %v", at, v, want))
	}
	if vals, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range vals {
			if reflect.DeepEqual(e, v) {
				found = true
			}
		}
		if !found {
			probs = append(probs, fmt.Sprintf("%s: %v is not in enum %v", at, v, vals))
		}
	}
	if t, ok := s["type"]; ok {
		var types []string
		switch t := t.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				types = append(types, x.(string))
			}
		}
		okType := false
		for _, typ := range types {
			if hasType(v, typ) {
				okType = true
			}
		}
		if !okType {
			return append(probs, fmt.Sprintf("%s: %s is not of type %v", at, jsonType(v), types))
		}
	}
	switch v := v.(type) {
	case map[string]any:
		if req, ok := s["required"].([]any); ok {
			for _, name := range req {
				if _, ok := v[name.(string)]; !ok {
					probs = append(probs, fmt.Sprintf("%s: required property %q is missing", at, name))
				}
			}
		}
		props, _ := s["properties"].(map[string]any)
		for name, val := range v {
			if ps, ok := props[name].(map[string]any); ok {
				probs = append(probs, c.checkPart(ps, val, at+"."+name, false)...)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case map[string]any:
				probs = append(probs, c.checkPart(ap, val, at+"."+name, false)...)
			case bool:
				if !ap {
					probs = append(probs, fmt.Sprintf("%s: property %q is not allowed", at, name))
				}
			}
		}
		if c.strict && !part {
			known, open := c.propertyNames(s)
			if !open {
				var extra []string
				for name := range v {
					if !known[name] {
						extra = append(extra, name)
					}
				}
				sort.Strings(extra)
				if len(extra) > 0 && len(known) > 0 {
					probs = append(probs, fmt.Sprintf("%s: undocumented properties %v", at, extra))
				}
			}
		}
	case []any:
		if items, ok := s["items"].(map[string]any); ok {
			for i, it := range v {
				probs = append(probs, c.checkPart(items, it, fmt.Sprintf("%s[%d]", at, i), false)...)
			}
		}
	}
	return probs
}

// propertyNames returns the properties s documents, through $ref and
// allOf, and whether it admits others (additionalProperties).
func (c schemaChecker) propertyNames(s map[string]any) (map[string]bool, bool) {
	s, err := c.deref(s)
	if err != nil {
		return nil, true
	}
	names := map[string]bool{}
	open := false
	if ap, ok := s["additionalProperties"]; ok && ap != false {
		open = true
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for n := range props {
			names[n] = true
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		all, _ := s[kw].([]any)
		for _, sub := range all {
			n, o := c.propertyNames(sub.(map[string]any))
			open = open || o
			for k := range n {
				names[k] = true
			}
		}
	}
	return names, open
}

func hasType(v any, typ string) bool {
	switch typ {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// refs returns every "$ref" in v with where it is.
func refs(v any, at string, out map[string]string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				out[at] = s
				continue
			}
			refs(x, at+"/"+k, out)
		}
	case []any:
		for i, x := range v {
			refs(x, fmt.Sprintf("%s/%d", at, i), out)
		}
	}
}

func mustJSON(b []byte) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}
