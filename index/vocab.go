package index

import "hash/maphash"

// vocab is an entry's terms, each given an id in order of first use,
// without a heap object per term (a scope of 100 records holds about 1,500
// terms, and a process holds thousands of scopes: objects the garbage
// collector would walk on every cycle). Their texts are in one byte arena,
// found by a hash of the text and checked against the arena; a term whose
// hash another term already has is kept in clash.
type vocab struct {
	seed   maphash.Seed
	byHash map[uint64]uint32
	text   []byte
	ends   []uint32 // ends[id]: where term id's text ends in text
	clash  map[string]uint32
}

func newVocab() vocab {
	return vocab{seed: maphash.MakeSeed(), byHash: map[uint64]uint32{}}
}

// size is how many terms v holds.
func (v *vocab) size() int { return len(v.ends) }

// textOf returns term id's text (a view of the arena: do not keep it).
func (v *vocab) textOf(id uint32) []byte {
	start := uint32(0)
	if id > 0 {
		start = v.ends[id-1]
	}
	return v.text[start:v.ends[id]]
}

// lookup returns term's id.
func (v *vocab) lookup(term string) (uint32, bool) {
	if id, ok := v.byHash[maphash.String(v.seed, term)]; ok && string(v.textOf(id)) == term {
		return id, true
	}
	id, ok := v.clash[term]
	return id, ok
}

// add returns term's id, giving it the next one if it is new.
func (v *vocab) add(term string) (id uint32, added bool) {
	h := maphash.String(v.seed, term)
	if id, ok := v.byHash[h]; ok {
		if string(v.textOf(id)) == term {
			return id, false
		}
		if id, ok := v.clash[term]; ok {
			return id, false
		}
	}
	id = uint32(len(v.ends))
	v.text = append(v.text, term...)
	v.ends = append(v.ends, uint32(len(v.text)))
	if _, taken := v.byHash[h]; taken {
		if v.clash == nil {
			v.clash = map[string]uint32{}
		}
		v.clash[term] = id
	} else {
		v.byHash[h] = id
	}
	return id, true
}
