package httpapi

import (
	"strings"

	"github.com/loci-memory/loci"
)

// pathValueLimits bound each path parameter by the domain's limit for what
// it names: the guard refuses a longer value (400, naming the parameter)
// and the OpenAPI document states the same maxLength, both from here. A
// parameter not listed is bounded by MaxPathValueBytes.
var pathValueLimits = map[string]int{
	"agent_id":   loci.MaxAgentIDBytes,
	"user_id":    loci.MaxUserIDBytes,
	"session_id": loci.MaxSessionIDBytes,
	"task_id":    loci.MaxTaskIDBytes,
	"label":      loci.MaxBlockLabelBytes,
	"block_id":   loci.MaxRecordIDBytes,
	"id":         loci.MaxRecordIDBytes,
	"event_id":   loci.MaxRecordIDBytes,
	"type":       loci.MaxPreferenceTypeBytes,
	"key":        loci.MaxNoteKeyBytes,
}

// maxPathValue returns the most bytes the path parameter name may have in
// the route pattern (its method may lead it): the domain's limit for what
// it names, where a name means different things on different routes (a
// working entry's key, an API key's id) the route's.
func maxPathValue(pattern, name string) int {
	_, path, ok := strings.Cut(pattern, " ")
	if !ok {
		path = pattern
	}
	switch {
	case name == "key" && strings.HasPrefix(path, "/v1/tasks/"):
		return loci.MaxWorkingKeyBytes
	case name == "id" && strings.HasPrefix(path, "/v1/keys/"):
		return loci.MaxKeyIDBytes
	}
	if n, ok := pathValueLimits[name]; ok {
		return n
	}
	return MaxPathValueBytes
}
