package loci

import (
	"errors"
	"fmt"
)

// Error codes (docs/api.md, "Errors"): the codes of every API; each transport
// maps them in exactly one place (HTTP status, MCP tool error, CLI exit status).
const (
	EINVALID      = "invalid"
	EUNAUTHORIZED = "unauthorized"
	EFORBIDDEN    = "forbidden"
	ENOTFOUND     = "not_found"
	ECONFLICT     = "conflict"
	ETOOLARGE     = "too_large"
	ERATELIMIT    = "rate_limited"
	EINTERNAL     = "internal"
	// EUNAVAILABLE: the storage does not answer in time (an outage, a
	// network partition, a database busy for longer than the store waits).
	// Not the request's fault: the same request may succeed later.
	EUNAVAILABLE = "unavailable"
	// ESTORAGEFULL: the storage has no room left for a write (a full disk).
	// Reads still work; writes fail until space is freed.
	ESTORAGEFULL = "storage_full"
	// ENOTIMPLEMENTED: a call of a framework's API (mem0's, say) that loci
	// does not serve: the route is known, the call is not done.
	ENOTIMPLEMENTED = "not_implemented"
)

// Error is a domain error: a code from the fixed set above and a message
// that is safe to show to a client. Err, when set, is the cause: kept in
// the chain for logs and errors.Is/As, never shown to a client.
type Error struct {
	Code    string
	Message string
	Err     error
}

// Error implements the error interface.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("loci error: code=%s message=%s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("loci error: code=%s message=%s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns a domain error with the given code and formatted message.
func Errorf(code string, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WrapError returns a domain error with the given code and message that
// keeps cause in its chain. Backends use it where they translate a driver
// error (an outage, a full disk) into a code.
func WrapError(cause error, code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: cause}
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

// statusOf is the HTTP status of each code.
var statusOf = map[string]int{
	EINVALID:        400,
	EUNAUTHORIZED:   401,
	EFORBIDDEN:      403,
	ENOTFOUND:       404,
	ECONFLICT:       409,
	ETOOLARGE:       413,
	ERATELIMIT:      429,
	EINTERNAL:       500,
	EUNAVAILABLE:    503,
	ESTORAGEFULL:    507,
	ENOTIMPLEMENTED: 501,
}

// StatusOf returns the HTTP status of an error code (500 for a code it does
// not know, 200 for ""): REST answers with it, and the audit log records it
// as the outcome of every operation, whatever the interface.
func StatusOf(code string) int {
	if code == "" {
		return 200
	}
	if st, ok := statusOf[code]; ok {
		return st
	}
	return 500
}

// CodeOf returns the error code of an HTTP status, for a client that reads
// one back (EINTERNAL for a status no code has).
func CodeOf(status int) string {
	for code, st := range statusOf {
		if st == status {
			return code
		}
	}
	return EINTERNAL
}

// retryAfterOf is the Retry-After (seconds) of the codes that ask the
// client to come back: storage trouble is not the request's fault.
var retryAfterOf = map[string]string{
	EUNAVAILABLE: "2",
	ESTORAGEFULL: "60",
}

// RetryAfter returns the Retry-After (seconds) an HTTP answer of code
// carries, and false for a code that does not ask the client to come back.
func RetryAfter(code string) (string, bool) {
	after, ok := retryAfterOf[code]
	return after, ok
}
