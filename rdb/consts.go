package rdb

// RDB opcodes, object types and constants (Redis 7.0 src/rdb.h).

// Version is the RDB format version Redis 7.0 writes (RDB_VERSION); DUMP
// payloads carry it too.
const Version = 10

// MaxReadVersion is the newest format version read: Redis 7.2's 11 adds
// only encodings this package also decodes (the listpack set).
const MaxReadVersion = 11

// Opcodes of an RDB file.
const (
	OpFunction2   = 245 // RDB_OPCODE_FUNCTION2: a library's code
	OpFunctionPre = 246 // RDB_OPCODE_FUNCTION_PRE_GA: 7.0 release candidates
	OpModuleAux   = 247
	OpIdle        = 248 // LRU idle time (seconds) of the next key
	OpFreq        = 249 // LFU counter of the next key
	OpAux         = 250
	OpResizeDB    = 251
	OpExpireMs    = 252
	OpExpire      = 253
	OpSelectDB    = 254
	OpEOF         = 255
)

// Object types (RDB_TYPE_*). Module types (6, 7) are not read.
const (
	TypeString          = 0
	TypeList            = 1
	TypeSet             = 2
	TypeZSet            = 3
	TypeHash            = 4
	TypeZSet2           = 5
	TypeHashZipmap      = 9
	TypeListZiplist     = 10
	TypeSetIntset       = 11
	TypeZSetZiplist     = 12
	TypeHashZiplist     = 13
	TypeListQuicklist   = 14
	TypeStreamListpacks = 15 // read by the stream codec once streams exist
	TypeHashListpack    = 16
	TypeZSetListpack    = 17
	TypeListQuicklist2  = 18
	TypeStreamListpack2 = 19
	TypeSetListpack     = 20 // Redis 7.2 (RDB 11)
	TypeStreamListpack3 = 21 // Redis 7.2 (RDB 11)
)

// Quicklist node containers (QUICKLIST_NODE_CONTAINER_*).
const (
	quicklistPlain  = 1
	quicklistPacked = 2
)

// Special string encodings (RDB_ENC_*), after a 11xxxxxx length byte.
const (
	encInt8  = 0
	encInt16 = 1
	encInt32 = 2
	encLZF   = 3
)

// Length encodings (RDB_6BITLEN ...).
const (
	len6   = 0
	len14  = 1
	len32  = 0x80
	len64  = 0x81
	lenEnc = 3
)
