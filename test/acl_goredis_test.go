package test

import (
	"testing"

	goredis "github.com/redis/go-redis/v9"
)

// TestGoRedisNamedUser: go-redis connects with Username/Password (HELLO 3
// AUTH user pass), runs commands the user may run, gets Redis's NOPERM
// texts for the others, and runs a WATCH transaction on its keys.
func TestGoRedisNamedUser(t *testing.T) {
	forBothServers(t, func(t *testing.T, addr string) {
		ctx := testContext(t)
		admin := newGoRedis(t, addr)
		if err := admin.Do(ctx, "ACL", "SETUSER", "svc", "reset", "on", ">pw", "~app:*", "%R~ro:*", "-@all", "+@read", "+@write", "+@transaction", "+hello").Err(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { admin.Do(ctx, "ACL", "DELUSER", "svc") })
		rdb := goredis.NewClient(&goredis.Options{Addr: addr, Username: "svc", Password: "pw"})
		defer rdb.Close()
		if err := rdb.Set(ctx, "app:1", "v", 0).Err(); err != nil {
			t.Fatalf("SET app:1: %v", err)
		}
		if got, err := rdb.Do(ctx, "ACL", "WHOAMI").Result(); err == nil {
			t.Fatalf("ACL WHOAMI allowed: %v", got)
		} else if err.Error() != "NOPERM this user has no permissions to run the 'acl|whoami' command" {
			t.Fatalf("ACL WHOAMI: %v", err)
		}
		if err := rdb.Set(ctx, "ro:1", "v", 0).Err(); err == nil || err.Error() != "NOPERM this user has no permissions to access one of the keys used as arguments" {
			t.Fatalf("SET ro:1: %v", err)
		}
		if err := rdb.Get(ctx, "ro:1").Err(); err != goredis.Nil {
			t.Fatalf("GET ro:1: %v", err)
		}
		err := rdb.Watch(ctx, func(tx *goredis.Tx) error {
			_, err := tx.TxPipelined(ctx, func(p goredis.Pipeliner) error {
				p.Incr(ctx, "app:n")
				return nil
			})
			return err
		}, "app:n")
		if err != nil {
			t.Fatalf("WATCH transaction: %v", err)
		}
		bad := goredis.NewClient(&goredis.Options{Addr: addr, Username: "svc", Password: "nope"})
		defer bad.Close()
		if err := bad.Ping(ctx).Err(); err == nil {
			t.Fatal("wrong password accepted")
		}
	})
}

// TestGoRedisNamedUserSelectors: go-redis as a user with a selector, on
// both servers: the selector's command and keys work, a denial reports
// the reason Redis picks across selectors, and a subscription to a
// channel the user may not use fails with Redis's NOPERM text.
func TestGoRedisNamedUserSelectors(t *testing.T) {
	forBothServers(t, func(t *testing.T, addr string) {
		ctx := testContext(t)
		admin := newGoRedis(t, addr)
		if err := admin.Do(ctx, "ACL", "SETUSER", "gsel", "reset", "on", ">pw", "~app:*", "-@all", "+@write", "+hello", "+ping",
			"+subscribe", "resetchannels", "&ok", "(~sel:* +get)").Err(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { admin.Do(ctx, "ACL", "DELUSER", "gsel") })
		admin.Set(ctx, "sel:1", "v", 0)
		rdb := goredis.NewClient(&goredis.Options{Addr: addr, Username: "gsel", Password: "pw"})
		defer rdb.Close()
		if v, err := rdb.Get(ctx, "sel:1").Result(); err != nil || v != "v" {
			t.Fatalf("GET sel:1 = %q, %v", v, err)
		}
		if err := rdb.Set(ctx, "app:1", "v", 0).Err(); err != nil {
			t.Fatalf("SET app:1: %v", err)
		}
		if err := rdb.Incr(ctx, "none").Err(); err == nil || err.Error() != "NOPERM this user has no permissions to access one of the keys used as arguments" {
			t.Errorf("INCR none: %v", err)
		}
		if err := rdb.Set(ctx, "sel:1", "w", 0).Err(); err == nil || err.Error() != "NOPERM this user has no permissions to access one of the keys used as arguments" {
			t.Errorf("SET sel:1: %v", err)
		}
		// The root selector may not run GET, the other may not touch app:1:
		// the key denial wins (ACLCheckAllUserCommandPerm).
		if err := rdb.Get(ctx, "app:1").Err(); err == nil || err.Error() != "NOPERM this user has no permissions to access one of the keys used as arguments" {
			t.Errorf("GET app:1: %v", err)
		}
		ps := rdb.Subscribe(ctx, "nope")
		defer ps.Close()
		if _, err := ps.Receive(ctx); err == nil || err.Error() != "NOPERM this user has no permissions to access one of the channels used as arguments" {
			t.Errorf("SUBSCRIBE nope: %v", err)
		}
	})
}
