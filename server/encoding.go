package server

import (
	"strconv"

	"github.com/miniwatchd/miniwatchd/db"
)

// The encoding thresholds of hashes, sets and sorted sets live in Config
// (hash-max-listpack-*, set-max-intset-entries, zset-max-listpack-*); the
// keyspace gets a copy at start-up and after every CONFIG SET of one of
// them, so OBJECT ENCODING follows Redis's conversion rules.

// encodingParams are the primary names of the parameters that feed
// db.EncodingLimits.
var encodingParams = []string{
	"hash-max-listpack-entries", "hash-max-listpack-value",
	"set-max-intset-entries",
	"zset-max-listpack-entries", "zset-max-listpack-value",
	"stream-node-max-bytes", "stream-node-max-entries",
}

// applyEncodingLimits copies the thresholds from the configuration to the
// keyspace. Called with the engine lock held (or before serving).
func applyEncodingLimits(s *Server) error {
	s.ks.SetEncodingLimits(db.EncodingLimits{
		HashMaxListpackEntries: s.cfg.HashMaxListpackEntries,
		HashMaxListpackValue:   s.cfg.HashMaxListpackValue,
		SetMaxIntsetEntries:    s.cfg.SetMaxIntsetEntries,
		ZSetMaxListpackEntries: s.cfg.ZSetMaxListpackEntries,
		ZSetMaxListpackValue:   s.cfg.ZSetMaxListpackValue,
		StreamNodeMaxBytes:     paramInt(s, "stream-node-max-bytes", 4096),
		StreamNodeMaxEntries:   paramInt(s, "stream-node-max-entries", 100),
	})
	return nil
}

// initEncodingLimits applies the configured thresholds and keeps them in
// step with CONFIG SET.
func (s *Server) initEncodingLimits() {
	s.params.onApply(applyEncodingLimits, encodingParams...)
	applyEncodingLimits(s)
}

// paramInt reads an untyped integer parameter (the stream node limits),
// def when it cannot be read.
func paramInt(s *Server, name string, def int64) int64 {
	if s.params == nil {
		return def
	}
	v, ok := s.params.Value(name)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return def
	}
	return n
}
