package test

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestDiffRandomBits sends the same random sequence of bitmap and BITFIELD
// commands (with SET, APPEND and GETRANGE mixed in, so bit writes meet
// values stored every way) to redis-server and miniwatchd and compares
// every reply, plus the value and OBJECT ENCODING after every write.
// Offsets, ranges and field widths cluster around byte and word edges.
func TestDiffRandomBits(t *testing.T) {
	diffRandomRuns(t, 3000, func(t *testing.T, p *diffPair, c *diffConn, rng *rand.Rand, ops int) int {
		tpDo(c, tpExact, "HSET", "h", "f", "v")
		g := &bitsGen{rng: rng}
		compared := 0
		for i := 0; i < ops; i++ {
			p.where = "op " + strconv.Itoa(i)
			cmd, wrote := g.next()
			tpDo(c, tpExact, cmd...)
			compared++
			for _, k := range wrote {
				tpDo(c, tpExact, "GET", k)
				tpDo(c, tpExact, "OBJECT", "ENCODING", k)
				compared += 2
			}
		}
		return compared
	})
}

// bitsGen generates random bit commands over a few keys.
type bitsGen struct{ rng *rand.Rand }

func (g *bitsGen) pick(s ...string) string { return s[g.rng.IntN(len(s))] }
func (g *bitsGen) key() string             { return g.pick("b1", "b2", "b3", "b3", "h", "none") }

// offset is a bit offset, mostly within the first few dozen bytes.
func (g *bitsGen) offset() int {
	switch g.rng.IntN(6) {
	case 0:
		return g.rng.IntN(16)
	case 1:
		return 8*g.rng.IntN(40) + g.pick2(0, 7)
	case 2:
		return g.rng.IntN(2000)
	}
	return g.rng.IntN(300)
}

func (g *bitsGen) pick2(a, b int) int {
	if g.rng.IntN(2) == 0 {
		return a
	}
	return b
}

// index is a BITCOUNT/BITPOS start or end, negative about a third of the time.
func (g *bitsGen) index(bitUnit bool) string {
	n := 40
	if bitUnit {
		n = 320
	}
	v := g.rng.IntN(n)
	if g.rng.IntN(3) == 0 {
		v = -v - 1
	}
	return strconv.Itoa(v)
}

// value is a string value to SET: bytes of few patterns, numbers, empty.
func (g *bitsGen) value() string {
	switch g.rng.IntN(5) {
	case 0:
		return g.pick("", "0", "12345", "-7", "9223372036854775807")
	case 1:
		b := make([]byte, g.rng.IntN(40))
		for i := range b {
			b[i] = byte(g.pick2(0, 0xff))
		}
		return string(b)
	}
	b := make([]byte, g.rng.IntN(70))
	for i := range b {
		b[i] = byte(g.rng.IntN(256))
	}
	return string(b)
}

func (g *bitsGen) fieldType() string {
	if g.rng.IntN(2) == 0 {
		return "i" + strconv.Itoa(1+g.rng.IntN(64))
	}
	return "u" + strconv.Itoa(1+g.rng.IntN(63))
}

func (g *bitsGen) fieldValue() string {
	switch g.rng.IntN(4) {
	case 0:
		return g.pick("0", "1", "-1", "9223372036854775807", "-9223372036854775808", "127", "128", "-129", "255", "256")
	case 1:
		return strconv.FormatInt(int64(g.rng.Uint64()), 10)
	}
	return strconv.Itoa(g.rng.IntN(600) - 300)
}

// next returns one command and the keys it may have written.
func (g *bitsGen) next() ([]string, []string) {
	k := g.key()
	switch g.rng.IntN(14) {
	case 0:
		return []string{"SET", k, g.value()}, []string{k}
	case 1, 2:
		return []string{"SETBIT", k, strconv.Itoa(g.offset()), g.pick("0", "1")}, []string{k}
	case 3:
		return []string{"GETBIT", k, strconv.Itoa(g.offset())}, nil
	case 4:
		switch g.rng.IntN(3) {
		case 0:
			return []string{"BITCOUNT", k}, nil
		case 1:
			return []string{"BITCOUNT", k, g.index(false), g.index(false)}, nil
		}
		unit := g.pick("BIT", "BYTE")
		return []string{"BITCOUNT", k, g.index(unit == "BIT"), g.index(unit == "BIT"), unit}, nil
	case 5, 6:
		bit := g.pick("0", "1")
		switch g.rng.IntN(4) {
		case 0:
			return []string{"BITPOS", k, bit}, nil
		case 1:
			return []string{"BITPOS", k, bit, g.index(false)}, nil
		case 2:
			return []string{"BITPOS", k, bit, g.index(false), g.index(false)}, nil
		}
		unit := g.pick("BIT", "BYTE")
		return []string{"BITPOS", k, bit, g.index(unit == "BIT"), g.index(unit == "BIT"), unit}, nil
	case 7:
		op := g.pick("AND", "OR", "XOR", "NOT")
		args := []string{"BITOP", op, k, g.key()}
		if op != "NOT" {
			for n := g.rng.IntN(3); n > 0; n-- {
				args = append(args, g.key())
			}
		}
		return args, []string{k}
	case 8, 9, 10:
		cmd := g.pick("BITFIELD", "BITFIELD", "BITFIELD", "BITFIELD_RO")
		args := []string{cmd, k}
		for n := 1 + g.rng.IntN(4); n > 0; n-- {
			if g.rng.IntN(4) == 0 {
				args = append(args, "OVERFLOW", g.pick("WRAP", "SAT", "FAIL"))
			}
			off := strconv.Itoa(g.offset())
			if g.rng.IntN(4) == 0 {
				off = "#" + strconv.Itoa(g.rng.IntN(20))
			}
			switch g.rng.IntN(3) {
			case 0:
				args = append(args, "GET", g.fieldType(), off)
			case 1:
				args = append(args, "SET", g.fieldType(), off, g.fieldValue())
			default:
				args = append(args, "INCRBY", g.fieldType(), off, g.fieldValue())
			}
		}
		return args, []string{k}
	case 11:
		return []string{"APPEND", k, g.value()}, []string{k}
	case 12:
		return []string{"GETRANGE", k, g.index(false), g.index(false)}, nil
	}
	return []string{"STRLEN", k}, nil
}
