package apidoc

// Small constructors for JSON Schema (2020-12) values, so the document
// reads as a table rather than as nested map literals.

type obj = map[string]any

// ref points at a component schema.
func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

func str(desc string) obj     { return withDesc(obj{"type": "string"}, desc) }
func integer(desc string) obj { return withDesc(obj{"type": "integer"}, desc) }
func number(desc string) obj  { return withDesc(obj{"type": "number"}, desc) }
func boolean(desc string) obj { return withDesc(obj{"type": "boolean"}, desc) }
func timestamp(desc string) obj {
	return withDesc(obj{"type": "string", "format": "date-time"}, desc)
}

// anyJSON is a value of any JSON type.
func anyJSON(desc string) obj { return withDesc(obj{}, desc) }

// nullable widens a schema with a "type" to also allow null.
func nullable(s obj) obj {
	out := obj{}
	for k, v := range s {
		out[k] = v
	}
	if t, ok := s["type"].(string); ok {
		out["type"] = []string{t, "null"}
	}
	return out
}

func enum(desc string, values ...string) obj {
	return withDesc(obj{"type": "string", "enum": values}, desc)
}

func array(items obj, desc string) obj {
	return withDesc(obj{"type": "array", "items": items}, desc)
}

func strList(desc string) obj { return array(obj{"type": "string"}, desc) }

// object is an object schema with the given properties, of which the
// required ones are named.
func object(required []string, props obj) obj {
	s := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// closed is a request body schema: unknown fields are rejected (400).
func closed(required []string, props obj) obj {
	s := object(required, props)
	s["additionalProperties"] = false
	return s
}

// mapOf is an object whose every value matches values.
func mapOf(values obj, desc string) obj {
	return withDesc(obj{"type": "object", "additionalProperties": values}, desc)
}

// success is a success body: "success": true beside the fields of parts
// (component references or inline objects).
func success(parts ...obj) obj {
	return obj{"allOf": append([]obj{ref("Success")}, parts...)}
}

// list is a success body listing items under field with the total count.
func list(field string, items obj, countDesc string) obj {
	return success(object([]string{"count", field}, obj{
		"count": integer(countDesc),
		field:   array(items, ""),
	}))
}

func withDesc(s obj, desc string) obj {
	if desc != "" {
		s["description"] = desc
	}
	return s
}

func describe(s obj, desc string) obj {
	out := obj{}
	for k, v := range s {
		out[k] = v
	}
	out["description"] = desc
	return out
}
