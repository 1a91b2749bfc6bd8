package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// Input schemas of the tools and the bounds they share.

// inputOptions are how input schemas are inferred: a json.RawMessage
// argument accepts any JSON value (the SDK decodes it untouched).
var inputOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {},
}}

// inputSchemaOf infers the input schema of a tool from In, then lets tweak
// refine it (enums, bounds, defaults). Optional pointer arguments are
// typed as their element (omitted when absent, never null). Call it once
// per tool, at package level.
func inputSchemaOf[In any](tweak func(*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](inputOptions)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema of %T: %v", *new(In), err))
	}
	for _, p := range s.Properties {
		switch {
		case len(p.Types) == 2 && p.Types[0] == "null":
			p.Type, p.Types = p.Types[1], nil
		case len(p.Types) == 1 && p.Types[0] == "null": // a json.RawMessage: any value
			p.Types = nil
		}
	}
	if tweak != nil {
		tweak(s)
	}
	return s
}

// objectProps makes a schema an object with documented, optional
// properties that still admits others.
func objectProps(s *jsonschema.Schema, props map[string]*jsonschema.Schema) {
	s.Type, s.Types = "object", nil
	s.Properties = props
	s.AdditionalProperties = &jsonschema.Schema{}
}

func enumOf[S ~string](values []S) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// Result sizes of the searches: the default and the most a model may ask
// for (a tool result goes into the model's context).
const (
	defaultEpisodeResults = 5
	defaultFactResults    = 10
	maxToolResults        = 100
)

// limitSchema bounds a limit argument to 1..maxToolResults, default def.
func limitSchema(s *jsonschema.Schema, def int) {
	s.Minimum, s.Maximum = ptr(1.0), ptr(float64(maxToolResults))
	s.Default = json.RawMessage(fmt.Sprint(def))
}
