package server

import (
	"testing"

	"github.com/miniwatchd/miniwatchd/config"
)

// TestRedisVersionMatchesConfig keeps the version INFO reports equal to the
// one config's fatal-error report names.
func TestRedisVersionMatchesConfig(t *testing.T) {
	if RedisVersion != config.RedisVersion {
		t.Errorf("server.RedisVersion %q, config.RedisVersion %q", RedisVersion, config.RedisVersion)
	}
}
