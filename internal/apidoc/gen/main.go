// Command gen writes loci's OpenAPI document, built from the REST server's
// route table (httpapi.OpenAPI), to a file; `go generate ./httpapi` runs
// it to refresh httpapi/openapi.json.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/loci-memory/loci/httpapi"
)

func main() {
	out := flag.String("o", "openapi.json", "the file to write")
	flag.Parse()
	b, err := httpapi.OpenAPI()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
