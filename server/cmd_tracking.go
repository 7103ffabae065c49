package server

import (
	"bytes"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO (Redis 7.0
// networking.c clientCommand), with the texts and order of checks of
// 7.0.15.

var trackingCommands = []commandDef{
	{"client|tracking", cmdClientTracking},
	{"client|caching", cmdClientCaching},
	{"client|getredir", cmdClientGetRedir},
	{"client|trackinginfo", cmdClientTrackingInfo},
}

var (
	errRedirectTwice    = protocol.Error("ERR A client can only redirect to a single other client")
	errRedirectNoClient = protocol.Error("ERR The client ID you want redirect to does not exist")
	errPrefixNeedsBcast = protocol.Error("ERR PREFIX option requires BCAST mode to be enabled")
	errSwitchBcast      = protocol.Error("ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.")
	errOptWithBcast     = protocol.Error("ERR OPTIN and OPTOUT are not compatible with BCAST")
	errOptInAndOut      = protocol.Error("ERR You can't specify both OPTIN mode and OPTOUT mode")
	errSwitchOpt        = protocol.Error("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.")
	errCachingNoMode    = protocol.Error("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled")
	errCachingYes       = protocol.Error("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.")
	errCachingNo        = protocol.Error("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.")
)

// CLIENT TRACKING <ON|OFF> [REDIRECT id] [BCAST] [PREFIX p]... [OPTIN]
// [OPTOUT] [NOLOOP]
func cmdClientTracking(c *client, args [][]byte) {
	s := c.srv
	var (
		redir    int64
		opt      clientTracking
		prefixes []string
	)
	for j := 3; j < len(args); j++ {
		more := len(args) - 1 - j
		a := args[j]
		switch {
		case bytes.EqualFold(a, []byte("redirect")) && more > 0:
			j++
			if redir != 0 {
				c.fail(errRedirectTwice)
				return
			}
			id, ok := protocol.ParseInt(args[j])
			if !ok {
				c.fail(protocol.ErrNotInteger)
				return
			}
			if s.clients[id] == nil {
				c.fail(errRedirectNoClient)
				return
			}
			redir = id
		case bytes.EqualFold(a, []byte("bcast")):
			opt.bcast = true
		case bytes.EqualFold(a, []byte("optin")):
			opt.optin = true
		case bytes.EqualFold(a, []byte("optout")):
			opt.optout = true
		case bytes.EqualFold(a, []byte("noloop")):
			opt.noloop = true
		case bytes.EqualFold(a, []byte("prefix")) && more > 0:
			j++
			prefixes = append(prefixes, string(args[j]))
		default:
			c.fail(protocol.ErrSyntax)
			return
		}
	}
	t := &c.ps.tracking
	switch {
	case bytes.EqualFold(args[2], []byte("on")):
		if !opt.bcast && len(prefixes) > 0 {
			c.fail(errPrefixNeedsBcast)
			return
		}
		if t.on && t.bcast != opt.bcast {
			c.fail(errSwitchBcast)
			return
		}
		if opt.bcast && (opt.optin || opt.optout) {
			c.fail(errOptWithBcast)
			return
		}
		if opt.optin && opt.optout {
			c.fail(errOptInAndOut)
			return
		}
		if (opt.optin && t.optout) || (opt.optout && t.optin) {
			c.fail(errSwitchOpt)
			return
		}
		if opt.bcast && !checkPrefixCollisions(c, prefixes) {
			return
		}
		s.enableTrackingLocked(c, redir, opt, prefixes)
	case bytes.EqualFold(args[2], []byte("off")):
		s.disableTrackingLocked(c)
	default:
		c.fail(protocol.ErrSyntax)
		return
	}
	c.w.OK()
}

// checkPrefixCollisions is Redis 7.0's checkPrefixCollisionsOrReply: two
// prefixes collide when one starts with the other. It replies with the
// error and reports false to stop the command. It keeps Redis's quirk: when
// the colliding pair among the new prefixes is found past the first
// prefix, the error is sent but the command goes on (and replies +OK too).
func checkPrefixCollisions(c *client, prefixes []string) bool {
	overlap := func(a, b string) bool {
		n := min(len(a), len(b))
		return a[:n] == b[:n]
	}
	for i, p := range prefixes {
		for _, old := range c.ps.tracking.prefixes {
			if overlap(old, p) {
				c.fail(protocol.Error("ERR Prefix '" + cstr(p) + "' overlaps with an existing prefix '" +
					cstr(old) + "'. Prefixes for a single client must not overlap."))
				return false
			}
		}
		for _, q := range prefixes[i+1:] {
			if overlap(p, q) {
				c.fail(protocol.Error("ERR Prefix '" + cstr(p) + "' overlaps with another provided prefix '" +
					cstr(q) + "'. Prefixes for a single client must not overlap."))
				return i != 0
			}
		}
	}
	return true
}

// CLIENT CACHING <YES|NO>
func cmdClientCaching(c *client, args [][]byte) {
	t := &c.ps.tracking
	if !t.on {
		c.fail(errCachingNoMode)
		return
	}
	switch {
	case bytes.EqualFold(args[2], []byte("yes")):
		if !t.optin {
			c.fail(errCachingYes)
			return
		}
	case bytes.EqualFold(args[2], []byte("no")):
		if !t.optout {
			c.fail(errCachingNo)
			return
		}
	default:
		c.fail(protocol.ErrSyntax)
		return
	}
	t.caching = true
	c.w.OK()
}

// CLIENT GETREDIR
func cmdClientGetRedir(c *client, args [][]byte) {
	if c.ps.tracking.on {
		c.w.Int(c.ps.tracking.redirect)
		return
	}
	c.w.Int(-1)
}

// CLIENT TRACKINGINFO
func cmdClientTrackingInfo(c *client, args [][]byte) {
	t := &c.ps.tracking
	w := &c.w
	w.Map(3)
	w.BulkString("flags")
	flags := make([]string, 0, 6)
	if t.on {
		flags = append(flags, "on")
	} else {
		flags = append(flags, "off")
	}
	if t.bcast {
		flags = append(flags, "bcast")
	}
	if t.optin {
		flags = append(flags, "optin")
		if t.caching {
			flags = append(flags, "caching-yes")
		}
	}
	if t.optout {
		flags = append(flags, "optout")
		if t.caching {
			flags = append(flags, "caching-no")
		}
	}
	if t.noloop {
		flags = append(flags, "noloop")
	}
	if t.brokenRedir {
		flags = append(flags, "broken_redirect")
	}
	w.Set(len(flags))
	for _, f := range flags {
		w.BulkString(f)
	}
	w.BulkString("redirect")
	if t.on {
		w.Int(t.redirect)
	} else {
		w.Int(-1)
	}
	w.BulkString("prefixes")
	w.Array(len(t.prefixes))
	for _, p := range t.prefixes {
		w.BulkString(p)
	}
}
