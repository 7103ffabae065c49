package db

// EncodingLimits are the thresholds that decide when a hash, set or sorted
// set leaves Redis's compact encoding (listpack or intset) for the general
// one (hashtable or skiplist), as the redis.conf parameters of the same
// names: hash-max-listpack-entries/value, set-max-intset-entries and
// zset-max-listpack-entries/value. Values are in elements or bytes.
//
// They only decide what OBJECT ENCODING reports and when the representation
// changes; replies do not depend on them. As in Redis, a value never goes
// back to the compact encoding when it shrinks, and new limits apply to
// later writes only.
type EncodingLimits struct {
	HashMaxListpackEntries int64
	HashMaxListpackValue   int64
	SetMaxIntsetEntries    int64
	ZSetMaxListpackEntries int64
	ZSetMaxListpackValue   int64
	StreamNodeMaxBytes     int64 // stream-node-max-bytes: when a stream node is full
	StreamNodeMaxEntries   int64 // stream-node-max-entries
}

// DefaultEncodingLimits returns Redis 7.0's defaults.
func DefaultEncodingLimits() EncodingLimits {
	return EncodingLimits{
		HashMaxListpackEntries: 512,
		HashMaxListpackValue:   64,
		SetMaxIntsetEntries:    512,
		ZSetMaxListpackEntries: 128,
		ZSetMaxListpackValue:   64,
		StreamNodeMaxBytes:     4096,
		StreamNodeMaxEntries:   100,
	}
}

// SetEncodingLimits installs the thresholds used by later writes.
func (ks *Keyspace) SetEncodingLimits(l EncodingLimits) { ks.limits = l }

// EncodingLimits returns the thresholds in use.
func (ks *Keyspace) EncodingLimits() EncodingLimits { return ks.limits }

// intsetMaxEntries is set-max-intset-entries capped at 2^30, as setTypeAdd
// caps it because of the intset's internals.
func (l *EncodingLimits) intsetMaxEntries() int64 {
	return min(l.SetMaxIntsetEntries, 1<<30)
}
