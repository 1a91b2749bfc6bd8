package loci

import (
	"errors"
	"fmt"
)

// Error codes. They are the codes of the REST contract; each transport maps
// them in exactly one place (HTTP status, MCP tool error, CLI exit status).
const (
	EINVALID      = "invalid"
	EUNAUTHORIZED = "unauthorized"
	EFORBIDDEN    = "forbidden"
	ENOTFOUND     = "not_found"
	ECONFLICT     = "conflict"
	ETOOLARGE     = "too_large"
	ERATELIMIT    = "rate_limited"
	EINTERNAL     = "internal"
)

// Error is a domain error: a code from the fixed set above and a message
// that is safe to show to a client.
type Error struct {
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("loci error: code=%s message=%s", e.Code, e.Message)
}

// Errorf returns a domain error with the given code and formatted message.
func Errorf(code string, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the domain error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the domain error in err's chain, and
// "internal error" for any other non-nil error.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
