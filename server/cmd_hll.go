package server

import (
	"github.com/miniwatchd/miniwatchd/hll"
	"github.com/miniwatchd/miniwatchd/protocol"
)

// HyperLogLog commands (Redis hyperloglog.c). The algorithm is package
// hll; the reads and writes of the value are db's PF* methods.

var hllCommands = []commandDef{
	{"pfadd", cmdPFAdd},
	{"pfcount", cmdPFCount},
	{"pfmerge", cmdPFMerge},
	{"pfdebug", cmdPFDebug},
	{"pfselftest", cmdPFSelfTest},
}

func cmdPFAdd(c *client, args [][]byte) {
	updated, err := c.db.PFAdd(args[1], args[2:], c.srv.cfg.HLLSparseMaxBytes)
	if err != nil {
		c.fail(err)
		return
	}
	if updated {
		c.w.Int(1)
	} else {
		c.w.Int(0)
	}
}

// cmdPFCount is pfcountCommand: the union's estimate for several keys; for
// one key the cached cardinality, refreshed when stale. Refreshing
// modifies the value, so Redis propagates the PFCOUNT although the command
// is read-only: forcePropagation does the same here.
func cmdPFCount(c *client, args [][]byte) {
	if len(args) > 2 {
		n, err := c.db.PFCountUnion(args[1:])
		if err != nil {
			c.fail(err)
			return
		}
		c.w.Int(n)
		return
	}
	n, written, err := c.db.PFCount(args[1])
	if err != nil {
		c.fail(err)
		return
	}
	if written {
		c.forcePropagation()
	}
	c.w.Int(n)
}

func cmdPFMerge(c *client, args [][]byte) {
	if err := c.db.PFMerge(args[1:], c.srv.cfg.HLLSparseMaxBytes); err != nil {
		c.fail(err)
		return
	}
	c.w.OK()
}

// cmdPFDebug is pfdebugCommand: the key is looked up and checked before
// the subcommand is, as Redis does.
func cmdPFDebug(c *client, args [][]byte) {
	sub := args[1]
	getreg, todense := cstrEqualFold(sub, "getreg"), cstrEqualFold(sub, "todense")
	val, converted, err := c.db.PFDebug(args[2], getreg || todense)
	if err != nil {
		c.fail(err)
		return
	}
	switch {
	case getreg:
		regs := hll.DenseRegisters(val)
		c.w.Array(len(regs))
		for _, r := range regs {
			c.w.Int(int64(r))
		}
	case cstrEqualFold(sub, "decode"):
		if hll.Encoding(val) != hll.Sparse {
			c.fail(protocol.Error("ERR HLL encoding is not sparse"))
			return
		}
		c.w.BulkString(hll.Decode(val))
	case cstrEqualFold(sub, "encoding"):
		if hll.Encoding(val) == hll.Dense {
			c.w.Status("dense")
		} else {
			c.w.Status("sparse")
		}
	case todense:
		if converted {
			c.w.Int(1)
		} else {
			c.w.Int(0)
		}
	default:
		c.fail(protocol.Error("ERR Unknown PFDEBUG subcommand '" + cstr(string(sub)) + "'"))
	}
}

func cmdPFSelfTest(c *client, _ [][]byte) {
	if msg := hll.SelfTest(c.srv.cfg.HLLSparseMaxBytes); msg != "" {
		c.fail(protocol.Error("ERR " + msg))
		return
	}
	c.w.OK()
}
