package apidoc

import (
	"fmt"
	"math/bits"
)

// Small constructors for JSON Schema (2020-12) values, so that the route
// table (httpapi) and the components read as tables rather than as nested
// map literals.

// Obj is a JSON object of the document: a schema, a parameter, a response.
type Obj = map[string]any

// Ref points at a component schema.
func Ref(name string) Obj { return Obj{"$ref": "#/components/schemas/" + name} }

// Str is a string schema; desc "" leaves out the description (so do the
// other constructors).
func Str(desc string) Obj { return WithDesc(Obj{"type": "string"}, desc) }

// Integer is an integer schema.
func Integer(desc string) Obj { return WithDesc(Obj{"type": "integer"}, desc) }

// Number is a number schema.
func Number(desc string) Obj { return WithDesc(Obj{"type": "number"}, desc) }

// Boolean is a boolean schema.
func Boolean(desc string) Obj { return WithDesc(Obj{"type": "boolean"}, desc) }

// Timestamp is an RFC 3339 date-time string.
func Timestamp(desc string) Obj {
	return WithDesc(Obj{"type": "string", "format": "date-time"}, desc)
}

// Expiry is an expiry a body may carry: an RFC 3339 time, or a date
// (YYYY-MM-DD) meaning the end of that day UTC, the day itself included; with
// clear, null as well, which removes the time to live.
func Expiry(desc string, clear bool) Obj {
	if !clear {
		return WithDesc(Obj{"type": "string"}, desc)
	}
	return WithDesc(Obj{"anyOf": []Obj{{"type": "string"}, {"type": "null"}}}, desc)
}

// AnyJSON is a value of any JSON type.
func AnyJSON(desc string) Obj { return WithDesc(Obj{}, desc) }

// Nullable widens a schema with a "type" to also allow null.
func Nullable(s Obj) Obj {
	out := Obj{}
	for k, v := range s {
		out[k] = v
	}
	if t, ok := s["type"].(string); ok {
		out["type"] = []string{t, "null"}
	}
	return out
}

// enum is a string that is one of values.
func enum(desc string, values ...string) Obj {
	return WithDesc(Obj{"type": "string", "enum": values}, desc)
}

// Array is an array of items.
func Array(items Obj, desc string) Obj {
	return WithDesc(Obj{"type": "array", "items": items}, desc)
}

// StrList is an array of strings.
func StrList(desc string) Obj { return Array(Obj{"type": "string"}, desc) }

// Object is an object schema with the given properties, of which the
// required ones are named.
func Object(required []string, props Obj) Obj {
	s := Obj{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// Closed is a request body schema: unknown fields are rejected (400).
func Closed(required []string, props Obj) Obj {
	s := Object(required, props)
	s["additionalProperties"] = false
	return s
}

// MapOf is an object whose every value matches values.
func MapOf(values Obj, desc string) Obj {
	return WithDesc(Obj{"type": "object", "additionalProperties": values}, desc)
}

// Success is a success body: "success": true beside the fields of parts
// (component references or inline objects).
func Success(parts ...Obj) Obj {
	return Obj{"allOf": append([]Obj{Ref("Success")}, parts...)}
}

// List is a success body listing items under field with the total count.
func List(field string, items Obj, countDesc string) Obj {
	return Success(Object([]string{"count", field}, Obj{
		"count": Integer(countDesc),
		field:   Array(items, ""),
	}))
}

// WithDesc sets s's description, unless desc is "", and returns s.
func WithDesc(s Obj, desc string) Obj {
	if desc != "" {
		s["description"] = desc
	}
	return s
}

// Bytes writes a size as the document states it: "64 KiB", "1 MiB",
// "100 bytes".
func Bytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// power2 writes n as 2^k when it is a power of two.
func power2(n int) string {
	if n > 0 && n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", bits.TrailingZeros(uint(n)))
	}
	return fmt.Sprint(n)
}
