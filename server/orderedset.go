package server

// orderedSet is a set that remembers insertion order, with O(1) add, remove
// and membership test. Pub/sub keeps subscribers and subscriptions in one so
// that message delivery and "unsubscribe from all" follow subscription order
// (Redis 7.0 keeps lists there), and the zero value is an empty set that
// allocates nothing until the first add.
type orderedSet[K comparable] struct {
	items []slot[K]
	index map[K]int // position in items of each live element
	dead  int       // removed slots not yet compacted
}

type slot[K comparable] struct {
	k    K
	live bool
}

// add inserts k at the end and reports whether it was missing.
func (o *orderedSet[K]) add(k K) bool {
	if _, ok := o.index[k]; ok {
		return false
	}
	if o.index == nil {
		o.index = make(map[K]int)
	}
	o.index[k] = len(o.items)
	o.items = append(o.items, slot[K]{k, true})
	return true
}

// remove deletes k and reports whether it was present. It never reorders the
// remaining elements, but may compact them, so it must not be called from
// inside each.
func (o *orderedSet[K]) remove(k K) bool {
	i, ok := o.index[k]
	if !ok {
		return false
	}
	delete(o.index, k)
	var zero K
	o.items[i] = slot[K]{zero, false}
	o.dead++
	if len(o.index) == 0 {
		o.items, o.dead = o.items[:0], 0
	} else if o.dead > 32 && o.dead > len(o.items)/2 {
		o.compact()
	}
	return true
}

func (o *orderedSet[K]) compact() {
	n := 0
	for _, s := range o.items {
		if s.live {
			o.items[n] = s
			o.index[s.k] = n
			n++
		}
	}
	clear(o.items[n:])
	o.items, o.dead = o.items[:n], 0
}

// has reports whether k is in the set.
func (o *orderedSet[K]) has(k K) bool {
	_, ok := o.index[k]
	return ok
}

// len returns the number of elements.
func (o *orderedSet[K]) len() int { return len(o.index) }

// each calls fn for every element in insertion order until fn returns false.
// fn must not add to or remove from the set.
func (o *orderedSet[K]) each(fn func(k K) bool) {
	for _, s := range o.items {
		if s.live && !fn(s.k) {
			return
		}
	}
}

// snapshot returns the elements in insertion order, for callers that change
// the set while walking it.
func (o *orderedSet[K]) snapshot() []K {
	out := make([]K, 0, len(o.index))
	o.each(func(k K) bool {
		out = append(out, k)
		return true
	})
	return out
}
