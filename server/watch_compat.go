package server

// compatProfile is watch-compat: whose transaction rules apply (spec
// watch.md section 9). The default, redis-7.0, is Redis 7.0.15's.
type compatProfile uint8

const (
	compatRedis70 compatProfile = iota
	compatRedis72
	compatRedis74
	compatValkey8
)

var compatNames = [...]string{"redis-7.0", "redis-7.2", "redis-7.4", "valkey-8"}

func (p compatProfile) String() string { return compatNames[p] }

func parseCompat(name string) compatProfile {
	for i, n := range compatNames {
		if n == name {
			return compatProfile(i)
		}
	}
	return compatRedis70
}
