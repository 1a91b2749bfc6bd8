package loci

import "errors"

// transientError marks a storage error that may succeed when retried
// (SQLite busy or locked, a PostgreSQL serialization failure).
type transientError struct{ err error }

func (e *transientError) Error() string { return e.err.Error() }
func (e *transientError) Unwrap() error { return e.err }

// Transient marks err as transient: a retry after a short backoff may
// succeed. Backends call it once, where they translate driver errors.
func Transient(err error) error {
	if err == nil || IsTransient(err) {
		return err
	}
	return &transientError{err: err}
}

// IsTransient reports whether err's chain holds an error marked Transient.
func IsTransient(err error) bool {
	var t *transientError
	return errors.As(err, &t)
}
