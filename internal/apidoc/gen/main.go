// Command gen writes loci's OpenAPI document (package apidoc) to a file;
// `go generate ./httpapi` runs it to refresh httpapi/openapi.json.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/loci-memory/loci/internal/apidoc"
)

func main() {
	out := flag.String("o", "openapi.json", "the file to write")
	flag.Parse()
	b, err := apidoc.JSON()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
