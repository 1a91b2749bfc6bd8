package index

import "hash/maphash"

// vocab is an entry's terms, each given an id in order of first use,
// without a heap object per term (a scope of 100 records holds about 1,500
// terms, and a process holds thousands of scopes: objects the garbage
// collector would walk on every cycle). Their texts are in one byte arena,
// found through an open-addressed table of ids (linear probing on a hash
// of the text, checked against the arena): 4 bytes a slot, where a map of
// hashes to ids took about 20 a term.
type vocab struct {
	seed  maphash.Seed
	slots []uint32 // 1 + a term's id, 0 when free; a power of two long, at most 3/4 full
	text  []byte
	ends  []uint32 // ends[id]: where term id's text ends in text
}

func newVocab() vocab {
	return vocab{seed: maphash.MakeSeed()}
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

// find returns term's id, or the free slot where it would go.
func (v *vocab) find(term string) (id uint32, slot int, ok bool) {
	mask := len(v.slots) - 1
	for i := int(maphash.String(v.seed, term)) & mask; ; i = (i + 1) & mask {
		s := v.slots[i]
		if s == 0 {
			return 0, i, false
		}
		if string(v.textOf(s-1)) == term {
			return s - 1, i, true
		}
	}
}

// lookup returns term's id.
func (v *vocab) lookup(term string) (uint32, bool) {
	if len(v.slots) == 0 {
		return 0, false
	}
	id, _, ok := v.find(term)
	return id, ok
}

// add returns term's id, giving it the next one if it is new.
func (v *vocab) add(term string) (id uint32, added bool) {
	if 4*(len(v.ends)+1) > 3*len(v.slots) {
		v.grow()
	}
	id, slot, ok := v.find(term)
	if ok {
		return id, false
	}
	id = uint32(len(v.ends))
	v.text = append(v.text, term...)
	v.ends = append(v.ends, uint32(len(v.text)))
	v.slots[slot] = id + 1
	return id, true
}

// grow doubles the table (16 slots at first) and places every term again.
func (v *vocab) grow() {
	v.slots = make([]uint32, max(16, 2*len(v.slots)))
	mask := len(v.slots) - 1
	for id := range uint32(len(v.ends)) {
		i := int(maphash.Bytes(v.seed, v.textOf(id))) & mask
		for v.slots[i] != 0 {
			i = (i + 1) & mask
		}
		v.slots[i] = id + 1
	}
}
