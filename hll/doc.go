// Package hll is Redis 7.0's HyperLogLog (hyperloglog.c) over the bytes of
// a string value: the 16-byte "HYLL" header with its cached cardinality,
// the sparse (ZERO/XZERO/VAL opcodes) and dense (16384 6-bit registers)
// encodings, MurmurHash64A with Redis's seed, the sparse-to-dense
// promotion at hll-sparse-max-bytes, and Ertl's improved estimator. Every
// function produces the same bytes and the same estimate as Redis for the
// same input, so values move between miniwatchd and redis-server with GET
// and SET.
//
// # Contracts
//
// Functions take the whole value (header included) and never read past its
// end: where Redis reads the byte behind the value (the sds terminator),
// this package reads a zero. Functions that may grow or re-encode a value
// return the new slice, which may or may not share the old one's array;
// callers own both. Corrupted values give an error or a -1 result as Redis
// gives INVALIDOBJ, never a panic; IsValid is Redis's isHLLObjectOrReply
// check, to be made before any other call.
//
// The package is a leaf: no locks, no globals besides constant tables.
package hll
