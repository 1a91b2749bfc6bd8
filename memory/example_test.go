package memory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/loci-memory/loci/memory"
	"github.com/loci-memory/loci/sqlite"
)

// Example is the README's Go library example.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loci-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	store, err := sqlite.Open(ctx, filepath.Join(dir, "loci.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	svc := memory.New(store)
	if _, err := svc.Remember(ctx, "writer", "tone", json.RawMessage(`"friendly"`)); err != nil {
		log.Fatal(err)
	}
	note, err := svc.Recall(ctx, "writer", "tone")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(note.Key, string(note.Value))
	// Output: tone "friendly"
}
