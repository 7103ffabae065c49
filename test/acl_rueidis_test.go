package test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"
)

// TestRueidisNamedUser: rueidis connects with Username/Password (HELLO 3
// AUTH user pass, then its CLIENT TRACKING set-up) as a user limited to
// some keys, channels and categories, on both servers; it runs what the
// user may run, client-side caching included, gets Redis's NOPERM texts
// for a key it may only read, a command and a channel it may not use, and
// is refused with a wrong password.
func TestRueidisNamedUser(t *testing.T) {
	forBothServers(t, func(t *testing.T, addr string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, DisableCache: true})
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		setuser := admin.B().Arbitrary("ACL", "SETUSER", "rsvc").Args("reset", "on", ">pw", "~app:*", "%R~ro:*",
			"resetchannels", "&news.*", "-@all", "+@read", "+@write", "+@connection", "+@transaction", "+@pubsub").Build()
		if err := admin.Do(ctx, setuser).Error(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			admin.Do(context.Background(), admin.B().Arbitrary("ACL", "DELUSER", "rsvc").Build())
		})

		c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, Username: "rsvc", Password: "pw"})
		if err != nil {
			t.Fatalf("rueidis with a named user: %v", err)
		}
		defer c.Close()
		if err := c.Do(ctx, c.B().Set().Key("app:1").Value("v").Build()).Error(); err != nil {
			t.Fatalf("SET app:1: %v", err)
		}
		if v, err := c.DoCache(ctx, c.B().Get().Key("app:1").Cache(), time.Minute).ToString(); err != nil || v != "v" {
			t.Fatalf("DoCache GET app:1 = %q, %v", v, err)
		}
		if err := c.Do(ctx, c.B().Get().Key("ro:1").Build()).Error(); !rueidis.IsRedisNil(err) {
			t.Fatalf("GET ro:1: %v", err)
		}
		nopermIs := func(what string, err error, want string) {
			t.Helper()
			if err == nil || err.Error() != want {
				t.Errorf("%s: got %v, want %q", what, err, want)
			}
		}
		nopermIs("SET ro:1", c.Do(ctx, c.B().Set().Key("ro:1").Value("v").Build()).Error(),
			"NOPERM this user has no permissions to access one of the keys used as arguments")
		nopermIs("CONFIG GET", c.Do(ctx, c.B().ConfigGet().Parameter("maxmemory").Build()).Error(),
			"NOPERM this user has no permissions to run the 'config|get' command")
		nopermIs("PUBLISH", c.Do(ctx, c.B().Publish().Channel("other").Message("m").Build()).Error(),
			"NOPERM this user has no permissions to access one of the channels used as arguments")
		if err := c.Do(ctx, c.B().Publish().Channel("news.1").Message("m").Build()).Error(); err != nil {
			t.Errorf("PUBLISH news.1: %v", err)
		}
		resps := c.DoMulti(ctx, c.B().Multi().Build(), c.B().Incr().Key("app:n").Build(), c.B().Exec().Build())
		for i, r := range resps {
			if err := r.Error(); err != nil {
				t.Errorf("MULTI/INCR/EXEC reply %d: %v", i, err)
			}
		}

		_, err = rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}, Username: "rsvc", Password: "nope"})
		if err == nil || !strings.Contains(err.Error(), "WRONGPASS invalid username-password pair or user is disabled.") {
			t.Errorf("wrong password: %v", err)
		}
	})
}
