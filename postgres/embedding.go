package postgres

import (
	"encoding/binary"
	"fmt"
	"math"
)

// embeddingBytes is v as embedding_f32 holds it: each float32 in 4 bytes,
// little-endian; NULL for no embedding, empty bytes for an empty one.
func embeddingBytes(v []float32) any {
	if v == nil {
		return nil
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// embeddingFromBytes reads an embedding_f32 value back.
func embeddingFromBytes(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("scan record: embedding of %d bytes, not a whole number of float32s", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}
