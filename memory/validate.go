package memory

import (
	"strings"
	"unicode/utf8"

	"github.com/loci-memory/loci"
)

// requireText checks that a required text field is present, valid UTF-8,
// free of NUL bytes, not only whitespace and at most max bytes (max 0: no
// limit).
func requireText(field, v string, max int) error {
	if !utf8.ValidString(v) {
		return loci.Errorf(loci.EINVALID, "%s must be valid UTF-8", field)
	} else if strings.ContainsRune(v, 0) {
		return loci.Errorf(loci.EINVALID, "%s must not contain NUL bytes", field)
	} else if strings.TrimSpace(v) == "" {
		return loci.Errorf(loci.EINVALID, "%s must not be empty", field)
	} else if max > 0 && len(v) > max {
		return loci.Errorf(loci.EINVALID, "%s must be at most %d bytes", field, max)
	}
	return nil
}
