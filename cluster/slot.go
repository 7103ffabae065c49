// Package cluster holds Redis Cluster's slot arithmetic: the CRC16 of
// keys (XMODEM, as Redis's src/crc16.c) and keyHashSlot's hash-tag rule
// (src/cluster.c), and a node's view of the cluster (State: nodes, slot
// owners, migrations, nodes.conf). It is a leaf package: the server holds
// the State and guards it with its engine lock.
package cluster

// Slots is the number of hash slots of a Redis Cluster (CLUSTER_SLOTS).
const Slots = 16384

var crcTable [256]uint16

func init() { // a pure table computation, no behaviour registered
	for i := 0; i < 256; i++ {
		crc := uint16(i) << 8
		for j := 0; j < 8; j++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		crcTable[i] = crc
	}
}

// CRC16 is Redis's crc16: CRC-16/XMODEM (polynomial 0x1021, initial 0).
func CRC16[T ~string | ~[]byte](b T) uint16 {
	var crc uint16
	for i := 0; i < len(b); i++ {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^b[i]]
	}
	return crc
}

// KeyHashSlot is Redis's keyHashSlot: when the key holds a '{' followed,
// after at least one byte, by a '}', only the bytes between the first '{'
// and the first '}' after it are hashed; otherwise (no '{', no '}' after
// it, or an empty tag "{}") the whole key is.
func KeyHashSlot[T ~string | ~[]byte](key T) int {
	s := -1
	for i := 0; i < len(key); i++ {
		if key[i] == '{' {
			s = i
			break
		}
	}
	if s < 0 {
		return int(CRC16(key) & (Slots - 1))
	}
	e := -1
	for i := s + 1; i < len(key); i++ {
		if key[i] == '}' {
			e = i
			break
		}
	}
	if e < 0 || e == s+1 {
		return int(CRC16(key) & (Slots - 1))
	}
	return int(CRC16(key[s+1:e]) & (Slots - 1))
}
