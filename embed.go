package loci

import "context"

// Embedder turns texts into vectors. Implementations live in embed/.
type Embedder interface {
	// Model names the model, so stored embeddings can be matched to it.
	Model() string
	// Dimensions is the length of every vector Embed returns.
	Dimensions() int
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
