package loci

import "context"

// NearestTx is what a StoreTx may implement when its store holds a
// nearest-neighbour index of its own over the records' embeddings
// (PostgreSQL with pgvector: HNSW). The search indexes (index/) use it for
// a scope too large for their memory budget, which they would otherwise
// stream whole, embeddings included, on every search: the vector side of
// the search is asked of the store's index, with the scope's filter
// applied in it, and the lexical side streams the scope without its
// embeddings.
type NearestTx interface {
	// NearestRecords calls fn with the records that f selects (every
	// field but Where, Order, Limit and Offset, which it ignores) and that
	// hold an embedding by model of q's dimensions, nearest q first by
	// cosine distance, each with its dot product with q, until fn returns
	// false or none are left. want is how many fn is expected to take
	// (the first read asks for about that many). The records come without
	// their embeddings unless vectors is set.
	//
	// It reports false, without calling fn, when the store cannot answer
	// so (no index for q's dimensions, or one that cannot apply the
	// filter while it searches): the caller then scans.
	NearestRecords(ctx context.Context, f RecordFilter, model string, q []float32, want int, vectors bool,
		fn func(r *Record, score float64) bool) (ok bool, err error)
	// ScanRecordsWithoutEmbeddings is ScanRecords with every record's
	// Embedding left nil, and its EmbeddingModel "" when it has no
	// embedding: for a pass that reads the records' text and metadata.
	ScanRecordsWithoutEmbeddings(ctx context.Context, f RecordFilter, fn func(*Record) error) error
}
