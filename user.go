package loci

import (
	"encoding/json"
	"time"
)

// MaxUserIDBytes bounds a user id.
const MaxUserIDBytes = 256

// User is a person whose preferences and sessions are remembered. Defaults
// holds the user's standing defaults as a JSON object.
type User struct {
	Workspace string          `json:"-"`
	ID        string          `json:"id"`
	Defaults  json.RawMessage `json:"defaults"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
}
