package db

import (
	"strings"

	"github.com/miniwatchd/miniwatchd/cluster"
)

// The per-slot key index of cluster mode (Redis's slots_to_keys): for each
// of the 16384 hash slots, how many keys the database holds and the keys
// themselves, newest first (slotToKeyAddEntry inserts at the head, and
// CLUSTER GETKEYSINSLOT walks from there). It is kept only when the
// keyspace was built with EnableSlotIndex: insert and unlink, the only two
// places a key enters or leaves the main table, update it, and a server
// without cluster mode pays one nil check in each.
//
// Cost: one map entry and one list node per key; insert and unlink do
// O(1) work plus one hash of the key's slot (CRC16 of the key or its tag).

// slotIndex is one dataset's index (it moves with the dataset on SWAPDB and
// is rebuilt empty by FLUSHDB/FLUSHALL).
type slotIndex struct {
	nodes map[string]*slotNode
	head  [cluster.Slots]*slotNode
	count [cluster.Slots]int32
}

type slotNode struct {
	key        string
	prev, next *slotNode
}

// EnableSlotIndex makes every database keep the per-slot key index
// (cluster mode). Call it before any key is added.
func (ks *Keyspace) EnableSlotIndex() {
	ks.slotIndexed = true
	for _, d := range ks.dbs {
		if d.data.slots == nil {
			d.data.slots = newSlotIndex()
		}
	}
}

func newSlotIndex() *slotIndex { return &slotIndex{nodes: map[string]*slotNode{}} }

// newDataset returns an empty dataset, with a slot index when the keyspace
// keeps one.
func (ks *Keyspace) newDataset() *dataset {
	ds := &dataset{}
	if ks.slotIndexed {
		ds.slots = newSlotIndex()
	}
	return ds
}

func (x *slotIndex) add(key string) {
	slot := cluster.KeyHashSlot(key)
	// A copy: the entry's key may share an allocation with a large inline
	// value that a later write lets go.
	key = strings.Clone(key)
	n := &slotNode{key: key, next: x.head[slot]}
	if n.next != nil {
		n.next.prev = n
	}
	x.head[slot] = n
	x.count[slot]++
	x.nodes[key] = n
}

func (x *slotIndex) remove(key string) {
	n := x.nodes[key]
	if n == nil {
		return
	}
	delete(x.nodes, key)
	slot := cluster.KeyHashSlot(key)
	if n.prev != nil {
		n.prev.next = n.next
	} else {
		x.head[slot] = n.next
	}
	if n.next != nil {
		n.next.prev = n.prev
	}
	x.count[slot]--
}

// CountKeysInSlot returns how many keys of slot the database holds
// (countKeysInSlot), counting keys past their deadline not yet deleted; 0
// without the slot index.
func (d *DB) CountKeysInSlot(slot int) int {
	if d.data.slots == nil {
		return 0
	}
	return int(d.data.slots.count[slot])
}

// KeysInSlot appends at most max keys of slot to dst, newest first, as
// CLUSTER GETKEYSINSLOT lists them (no lazy expiry, as Redis).
func (d *DB) KeysInSlot(dst []string, slot, max int) []string {
	if d.data.slots == nil {
		return dst
	}
	for n := d.data.slots.head[slot]; n != nil && max > 0; n = n.next {
		dst = append(dst, n.key)
		max--
	}
	return dst
}

// HasKeyQuiet reports whether key exists, as getNodeByQuery asks during a
// migration (lookupKeyReadWithFlags with NOTOUCH|NOSTATS|NONOTIFY): a
// stale key is expired first; no hit, miss or access is recorded.
func (d *DB) HasKeyQuiet(key []byte) bool {
	return d.lookup(bstr(key), lookupNoTouch|lookupNoNotify) != nil
}
