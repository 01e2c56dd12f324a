package toolsearch

import "context"

// Embedder turns texts into vectors whose cosine similarity says how close
// their meanings are: a host plugs its model provider's embeddings here to
// make the ranking hybrid ([WithEmbedder]). The library ships no model.
//
// Embed returns one vector per text, in order, all of one dimension. The
// index calls it with batches of tool texts (at most [WithEmbedBatch] at a
// time) and with one query at a time, never while holding a lock, and it
// may call it from several goroutines at once. A vector of the wrong
// dimension or with a NaN or infinite component is ignored, as is every
// vector of a call that fails or returns the wrong number of vectors.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}
