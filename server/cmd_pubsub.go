package server

import (
	"strings"

	"github.com/miniwatchd/miniwatchd/protocol"
)

// Pub/Sub commands (Redis 7.0 pubsub.c): SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE
// PUNSUBSCRIBE SSUBSCRIBE SUNSUBSCRIBE PUBLISH SPUBLISH PUBSUB.

var pubsubCommands = []commandDef{
	{"subscribe", cmdSubscribe},
	{"unsubscribe", cmdUnsubscribe},
	{"psubscribe", cmdPSubscribe},
	{"punsubscribe", cmdPUnsubscribe},
	{"ssubscribe", cmdSSubscribe},
	{"sunsubscribe", cmdSUnsubscribe},
	{"publish", cmdPublish},
	{"spublish", cmdSPublish},
	{"pubsub|channels", cmdPubsubChannels},
	{"pubsub|numsub", cmdPubsubNumsub},
	{"pubsub|numpat", cmdPubsubNumpat},
	{"pubsub|shardchannels", cmdPubsubShardChannels},
	{"pubsub|shardnumsub", cmdPubsubShardNumsub},
	{"pubsub|help", cmdHelp},
}

// A client that expects exactly one reply per command (a script; EXEC is
// exempt for SUBSCRIBE and PSUBSCRIBE, but not for SSUBSCRIBE, in 7.0)
// cannot enter pub/sub mode.
var (
	errSubscribeDenied  = protocol.Error("ERR SUBSCRIBE isn't allowed for a DENY BLOCKING client")
	errPSubscribeDenied = protocol.Error("ERR PSUBSCRIBE isn't allowed for a DENY BLOCKING client")
	errSSubscribeDenied = protocol.Error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client")
)

func cmdSubscribe(c *client, args [][]byte) {
	if c.denyBlocking && !c.multi.Active() {
		c.fail(errSubscribeDenied)
		return
	}
	for _, ch := range args[1:] {
		c.srv.subscribeLocked(c, kindChannel, ch)
	}
}

func cmdPSubscribe(c *client, args [][]byte) {
	if c.denyBlocking && !c.multi.Active() {
		c.fail(errPSubscribeDenied)
		return
	}
	for _, p := range args[1:] {
		c.srv.subscribeLocked(c, kindPattern, p)
	}
}

func cmdSSubscribe(c *client, args [][]byte) {
	if c.denyBlocking {
		c.fail(errSSubscribeDenied)
		return
	}
	for _, ch := range args[1:] {
		c.srv.subscribeLocked(c, kindShard, ch)
	}
}

func cmdUnsubscribe(c *client, args [][]byte)  { unsubscribeCommand(c, args, kindChannel) }
func cmdPUnsubscribe(c *client, args [][]byte) { unsubscribeCommand(c, args, kindPattern) }
func cmdSUnsubscribe(c *client, args [][]byte) { unsubscribeCommand(c, args, kindShard) }

// unsubscribeCommand confirms each named subscription (subscribed or not),
// or with no names drops all of kind k.
func unsubscribeCommand(c *client, args [][]byte, k subKind) {
	if len(args) == 1 {
		c.srv.unsubscribeAllLocked(c, k, true)
		return
	}
	for _, name := range args[1:] {
		c.srv.unsubscribeLocked(c, k, string(name), true)
	}
}

func cmdPublish(c *client, args [][]byte) {
	c.w.Int(int64(c.srv.publishLocked(args[1], args[2], false)))
}

func cmdSPublish(c *client, args [][]byte) {
	c.w.Int(int64(c.srv.publishLocked(args[1], args[2], true)))
}

// subcommandSyntaxError is Redis's addReplySubcommandSyntaxError.
func subcommandSyntaxError(c *client, args [][]byte) {
	sub := string(args[1])
	if len(sub) > 128 {
		sub = sub[:128]
	}
	c.fail(protocol.Error("ERR unknown subcommand or wrong number of arguments for '" + cstr(sub) +
		"'. Try " + strings.ToUpper(string(args[0])) + " HELP."))
}

func cmdPubsubChannels(c *client, args [][]byte)      { channelList(c, args, kindChannel) }
func cmdPubsubShardChannels(c *client, args [][]byte) { channelList(c, args, kindShard) }

// channelList answers PUBSUB CHANNELS / SHARDCHANNELS [pattern].
func channelList(c *client, args [][]byte, k subKind) {
	if len(args) > 3 {
		subcommandSyntaxError(c, args)
		return
	}
	var pat []byte
	if len(args) == 3 {
		pat = args[2]
	}
	names := c.srv.channelNamesLocked(k, pat)
	c.w.Array(len(names))
	for _, n := range names {
		c.w.BulkString(n)
	}
}

func cmdPubsubNumsub(c *client, args [][]byte)      { numsub(c, args, kindChannel) }
func cmdPubsubShardNumsub(c *client, args [][]byte) { numsub(c, args, kindShard) }

// numsub answers PUBSUB NUMSUB / SHARDNUMSUB [name ...]: a flat array of
// name, count pairs.
func numsub(c *client, args [][]byte, k subKind) {
	c.w.Array((len(args) - 2) * 2)
	for _, name := range args[2:] {
		c.w.Bulk(name)
		c.w.Int(int64(c.srv.subscriberCountLocked(k, name)))
	}
}

func cmdPubsubNumpat(c *client, args [][]byte) {
	c.w.Int(int64(len(c.srv.ps.subs[kindPattern])))
}
