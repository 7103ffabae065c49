package rdb

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"strconv"
	"testing"
)

func redisDo(t *testing.T, c net.Conn, br *bufio.Reader, args ...string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	c.Write(b.Bytes())
	line, _ := br.ReadString('\n')
	if line[0] == '$' {
		n, _ := strconv.Atoi(line[1 : len(line)-2])
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		_, _ = io_ReadFull(br, buf)
		return buf[:n]
	}
	return []byte(line)
}

func io_ReadFull(br *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := br.Read(b[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func TestScratchVsRedis(t *testing.T) {
	c, err := net.Dial("tcp", "127.0.0.1:23791")
	if err != nil {
		t.Skip()
	}
	br := bufio.NewReader(c)
	o := DefaultOptions()
	check := func(key string, v *Value) {
		got := DumpPayload(v, &o)
		want := redisDo(t, c, br, "DUMP", key)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: got %q\nwant %q", key, got, want)
		}
		pv, err := ParsePayload(want, true)
		if err != nil {
			t.Errorf("%s: parse %v", key, err)
		} else {
			_ = pv
		}
	}
	redisDo(t, c, br, "FLUSHALL")
	// strings
	for i, s := range []string{"12", "-5", "300", "70000", "12345678901", "abc", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "abcdefghijklmnopqrstuvwxyz0123456789", "-0", "+1", "007"} {
		k := "s" + strconv.Itoa(i)
		redisDo(t, c, br, "SET", k, s)
		check(k, &Value{Kind: KindString, Str: []byte(s)})
	}
	// lists of varying sizes
	for _, sz := range []int{1, 10, 63, 64, 100, 250, 254, 300, 5000, 20000} {
		for _, n := range []int{1, 5, 80, 200, 1000} {
			k := fmt.Sprintf("l%d_%d", sz, n)
			var elems []string
			args := []string{"RPUSH", k}
			for i := 0; i < n; i++ {
				e := string(bytes.Repeat([]byte{byte('a' + i%26)}, sz))
				if i%7 == 3 {
					e = strconv.Itoa(i * 1000)
				}
				elems = append(elems, e)
				args = append(args, e)
			}
			redisDo(t, c, br, args...)
			check(k, &Value{Kind: KindList, Elems: elems})
		}
	}
	// hash listpack
	redisDo(t, c, br, "HSET", "h", "f", "1", "g", "300", "x", "-7000", "y", "big", "z", "99999999999")
	check("h", &Value{Kind: KindHash, Compact: true, Elems: []string{"f", "1", "g", "300", "x", "-7000", "y", "big", "z", "99999999999"}})
	// zset listpack
	redisDo(t, c, br, "ZADD", "z", "1.5", "a", "1", "b", "0.1", "c", "3e20", "d", "-0", "e", "1e18", "f", "5e18", "g")
	zv := &Value{Kind: KindZSet, Compact: true, Elems: []string{"a", "b", "c", "d", "e", "f", "g"}, Scores: []float64{1.5, 1, 0.1, 3e20, 0, 1e18, 5e18}}
	sortZSet(zv)
	check("z", zv)
	// intset
	redisDo(t, c, br, "SADD", "st", "1", "2", "70000", "-3")
	check("st", &Value{Kind: KindSet, Compact: true, Ints: []int64{-3, 1, 2, 70000}})
	redisDo(t, c, br, "SADD", "st2", "1", "2", "-3")
	check("st2", &Value{Kind: KindSet, Compact: true, Ints: []int64{-3, 1, 2}})
	redisDo(t, c, br, "SADD", "st3", "1", "9999999999")
	check("st3", &Value{Kind: KindSet, Compact: true, Ints: []int64{1, 9999999999}})
	// skiplist zset
	args := []string{"ZADD", "zl"}
	zl := &Value{Kind: KindZSet}
	for i := 0; i < 200; i++ {
		args = append(args, strconv.Itoa(i*7%13), "m"+strconv.Itoa(i))
		zl.Elems = append(zl.Elems, "m"+strconv.Itoa(i))
		zl.Scores = append(zl.Scores, float64(i*7%13))
	}
	sortZSet(zl)
	redisDo(t, c, br, args...)
	check("zl", zl)
	// hash with long values in listpack
	redisDo(t, c, br, "CONFIG", "SET", "hash-max-listpack-value", "100000")
	long := string(bytes.Repeat([]byte("q"), 20000))
	mid := string(bytes.Repeat([]byte("r"), 300))
	redisDo(t, c, br, "HSET", "hl", "a", long, "b", mid)
	check("hl", &Value{Kind: KindHash, Compact: true, Elems: []string{"a", long, "b", mid}})
	redisDo(t, c, br, "CONFIG", "SET", "hash-max-listpack-value", "64")
}
