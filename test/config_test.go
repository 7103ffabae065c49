package test

import (
	"fmt"
	"sort"
	"testing"
)

// processConfig are parameters whose values describe the process rather
// than the configuration: they differ between any two servers.
var processConfig = map[string]bool{"port": true, "pidfile": true, "dir": true}

// TestConfigGetAll compares CONFIG GET * between the servers, started with
// the same options: the same parameter names, and the same values except
// for processConfig.
func TestConfigGetAll(t *testing.T) {
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			t.Parallel()
			p := newDiffPairProto(t, proto)
			want, got := p.Conn("A").DoMode(cmpShape, "CONFIG", "GET", "*")
			wv, gv := configPairs(want), configPairs(got)
			var names []string
			for name := range wv {
				names = append(names, name)
			}
			for name := range gv {
				if _, ok := wv[name]; !ok {
					names = append(names, name)
				}
			}
			sort.Strings(names)
			for _, name := range names {
				w, inRedis := wv[name]
				g, inOurs := gv[name]
				switch {
				case !inOurs:
					t.Errorf("CONFIG GET * lacks %s (redis-server: %q)", name, w)
				case !inRedis:
					t.Errorf("CONFIG GET * has %s = %q, which redis-server does not", name, g)
				case w != g && !processConfig[name]:
					t.Errorf("CONFIG GET %s = %q, redis-server says %q", name, g, w)
				}
			}
		})
	}
}

// configPairs reads a CONFIG GET reply (a flat array or a map).
func configPairs(n node) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(n.Elems); i += 2 {
		out[n.Elems[i].Str] = n.Elems[i+1].Str
	}
	return out
}
