package miniwatchd

import (
	"sort"
	"strconv"
	"time"
)

// The typed methods: each runs one command (two for the few noted) on the
// database chosen by Select, through the server's dispatch (see the package
// doc). A missing key reads as ErrKeyNotFound; a key of another type as the
// WRONGTYPE ReplyError.

// Select chooses the database of the typed methods and Do (SELECT).
func (s *Server) Select(db int) error {
	s.t.Helper()
	if _, err := s.Do("SELECT", strconv.Itoa(db)); err != nil {
		return err
	}
	s.mu.Lock()
	s.db = db
	s.mu.Unlock()
	return nil
}

// FlushAll deletes every key of every database (FLUSHALL). Faults stay.
func (s *Server) FlushAll() {
	s.t.Helper()
	if _, err := s.Do("FLUSHALL"); err != nil {
		s.t.Fatalf("miniwatchd: FLUSHALL: %v", err)
	}
}

// Get returns a string key's value (GET).
func (s *Server) Get(key string) (string, error) { return str(s.do("GET", key)) }

// Set sets a string key, dropping any TTL it had (SET).
func (s *Server) Set(key, value string) error {
	_, err := s.do("SET", key, value)
	return err
}

// Del deletes keys and returns how many existed (DEL).
func (s *Server) Del(keys ...string) int {
	s.t.Helper()
	n, err := integer(s.Do(append([]string{"DEL"}, keys...)...))
	if err != nil {
		s.t.Fatalf("miniwatchd: DEL: %v", err)
	}
	return n
}

// Exists reports whether key exists (EXISTS).
func (s *Server) Exists(key string) bool {
	s.t.Helper()
	n, err := integer(s.Do("EXISTS", key))
	if err != nil {
		s.t.Fatalf("miniwatchd: EXISTS: %v", err)
	}
	return n == 1
}

// Keys returns every key of the database, sorted (KEYS *).
func (s *Server) Keys() []string {
	s.t.Helper()
	keys, err := strs(s.Do("KEYS", "*"))
	if err != nil {
		s.t.Fatalf("miniwatchd: KEYS: %v", err)
	}
	sort.Strings(keys)
	return keys
}

// TTL returns the time key has left to live, 0 when it has no TTL (PTTL).
func (s *Server) TTL(key string) (time.Duration, error) {
	ms, err := integer(s.Do("PTTL", key))
	switch {
	case err != nil:
		return 0, err
	case ms == -2:
		return 0, ErrKeyNotFound
	case ms < 0:
		return 0, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// SetTTL gives key d to live (PEXPIRE, in whole milliseconds), or removes
// its TTL when d <= 0 (PERSIST).
func (s *Server) SetTTL(key string, d time.Duration) error {
	if d <= 0 {
		if !s.Exists(key) {
			return ErrKeyNotFound
		}
		_, err := s.Do("PERSIST", key)
		return err
	}
	n, err := integer(s.Do("PEXPIRE", key, strconv.FormatInt(d.Milliseconds(), 10)))
	if err == nil && n == 0 {
		return ErrKeyNotFound
	}
	return err
}

// Type returns key's type as TYPE names it ("none" when missing).
func (s *Server) Type(key string) string {
	s.t.Helper()
	t, err := str(s.Do("TYPE", key))
	if err != nil {
		s.t.Fatalf("miniwatchd: TYPE: %v", err)
	}
	return t
}

// HSet sets fields of a hash from field, value pairs and returns how many
// fields are new (HSET).
func (s *Server) HSet(key string, fieldValues ...string) (int, error) {
	return integer(s.Do(append([]string{"HSET", key}, fieldValues...)...))
}

// HGet returns one field of a hash (HGET).
func (s *Server) HGet(key, field string) (string, error) { return str(s.do("HGET", key, field)) }

// HGetAll returns every field of a hash (HGETALL).
func (s *Server) HGetAll(key string) (map[string]string, error) {
	kv, err := nonEmpty(strs(s.Do("HGETALL", key)))
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m, nil
}

// LPush prepends values to a list and returns its length (LPUSH).
func (s *Server) LPush(key string, values ...string) (int, error) {
	return integer(s.Do(append([]string{"LPUSH", key}, values...)...))
}

// RPush appends values to a list and returns its length (RPUSH).
func (s *Server) RPush(key string, values ...string) (int, error) {
	return integer(s.Do(append([]string{"RPUSH", key}, values...)...))
}

// List returns every element of a list, head first (LRANGE 0 -1).
func (s *Server) List(key string) ([]string, error) {
	return nonEmpty(strs(s.Do("LRANGE", key, "0", "-1")))
}

// SAdd adds members to a set and returns how many are new (SADD).
func (s *Server) SAdd(key string, members ...string) (int, error) {
	return integer(s.Do(append([]string{"SADD", key}, members...)...))
}

// Members returns the members of a set, sorted (SMEMBERS).
func (s *Server) Members(key string) ([]string, error) {
	m, err := nonEmpty(strs(s.Do("SMEMBERS", key)))
	sort.Strings(m)
	return m, err
}

// ZAdd adds member with score to a sorted set, or changes its score, and
// reports whether it is new (ZADD).
func (s *Server) ZAdd(key string, score float64, member string) (bool, error) {
	n, err := integer(s.Do("ZADD", key, strconv.FormatFloat(score, 'g', -1, 64), member))
	return n == 1, err
}

// ZScore returns a member's score (ZSCORE).
func (s *Server) ZScore(key, member string) (float64, error) {
	v, err := str(s.do("ZSCORE", key, member))
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(v, 64)
}

// ZMembers returns the members of a sorted set by rank (ZRANGE 0 -1).
func (s *Server) ZMembers(key string) ([]string, error) {
	return nonEmpty(strs(s.Do("ZRANGE", key, "0", "-1")))
}

// StreamEntry is one entry of a stream: its ID and its field, value pairs
// in order.
type StreamEntry struct {
	ID     string
	Fields []string
}

// XAdd adds an entry to a stream and returns its ID; id is "*" for one
// from the server's clock (XADD).
func (s *Server) XAdd(key, id string, fieldValues ...string) (string, error) {
	return str(s.Do(append([]string{"XADD", key, id}, fieldValues...)...))
}

// XRange returns the entries of a stream between start and end, "-" and "+"
// for all (XRANGE).
func (s *Server) XRange(key, start, end string) ([]StreamEntry, error) {
	v, err := s.Do("XRANGE", key, start, end)
	if err != nil {
		return nil, err
	}
	rows, _ := v.([]any)
	out := make([]StreamEntry, 0, len(rows))
	for _, r := range rows {
		e, _ := r.([]any)
		if len(e) != 2 {
			continue
		}
		id, _ := e[0].(string)
		fields, _ := strs(e[1], nil)
		out = append(out, StreamEntry{ID: id, Fields: fields})
	}
	return out, nil
}

// nonEmpty turns the empty reply of a read of a missing key into
// ErrKeyNotFound (an existing list, set, hash or sorted set is never empty).
func nonEmpty(v []string, err error) ([]string, error) {
	if err == nil && len(v) == 0 {
		return nil, ErrKeyNotFound
	}
	return v, err
}
