package rules_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/loci-memory/loci/rules"
	"github.com/loci-memory/loci/sqlite"
)

// Example is the README's Go library example, statement for statement
// (TestREADMEGoExample): open a store, remember a note, recall it. It
// opens loci.db in the working directory, as the program in the README
// does (the tests run in a temporary one).
func Example() {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, "loci.db")
	if err != nil {
		log.Fatal(err)
	}
	svc := rules.New(store)
	defer svc.Close() // writes the audit entries that wait, then closes the store

	if _, err := svc.Remember(ctx, "writer", "tone", json.RawMessage(`"friendly"`)); err != nil {
		log.Fatal(err)
	}
	note, err := svc.Recall(ctx, "writer", "tone")
	if err != nil {
		log.Fatal(err)
	}
	var tone string // a note's value is JSON: here a string
	if err := json.Unmarshal(note.Value, &tone); err != nil {
		log.Fatal(err)
	}
	fmt.Println(note.Key, tone)
	// Output: tone friendly
}
