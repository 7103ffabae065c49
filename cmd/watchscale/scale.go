package main

import (
	"fmt"
	"sort"
	"strconv"
	"time"
)

// watchDistinct makes connection i WATCH "<prefix>:<i>:0" .. "<prefix>:<i>:<keys-1>",
// perCmd keys per WATCH command. Every command is written before any reply
// is read.
func watchDistinct(conns []*conn, prefix string, keys, perCmd int) error {
	cmds := (keys + perCmd - 1) / perCmd
	for i, c := range conns {
		base := prefix + ":" + strconv.Itoa(i) + ":"
		for k0 := 0; k0 < keys; k0 += perCmd {
			n := min(perCmd, keys-k0)
			c.w.WriteString("*" + strconv.Itoa(n+1) + "\r\n")
			c.bulk("WATCH")
			for k := k0; k < k0+n; k++ {
				c.bulk(base + strconv.Itoa(k))
			}
		}
		if err := c.flush(); err != nil {
			return fmt.Errorf("WATCH on connection %d: %v", i+1, err)
		}
	}
	for i, c := range conns {
		for j := 0; j < cmds; j++ {
			if err := c.expect("OK"); err != nil {
				return fmt.Errorf("WATCH on connection %d: %v", i+1, err)
			}
		}
	}
	return nil
}

// disconnectAll closes every connection of conns at once and polls INFO
// clients on ctl until only ctl is left. It returns the seconds from the
// first close to the reply that showed it, and how many polls it took.
func disconnectAll(ctl *conn, conns []*conn) (float64, int, error) {
	n, err := ctl.connectedClients()
	if err != nil {
		return 0, 0, err
	}
	if n != len(conns)+1 {
		return 0, 0, fmt.Errorf("connected_clients is %d before the closes, want %d (is another client connected?)", n, len(conns)+1)
	}
	t0 := time.Now()
	for _, c := range conns {
		c.close()
	}
	polls := 0
	for {
		n, err := ctl.connectedClients()
		polls++
		if err != nil {
			return 0, polls, err
		}
		if n == 1 {
			return time.Since(t0).Seconds(), polls, nil
		}
		if time.Since(t0) > ctl.timeout {
			return 0, polls, fmt.Errorf("connected_clients still %d after %v", n, ctl.timeout)
		}
	}
}

// touch is mode touch: watchers connections WATCH one key, one SET of it is
// timed, repeat times.
func touch(o *options, stdout interface{ Write([]byte) (int, error) }) error {
	key := o.prefix + ":hot"
	writer, err := dial(o.addr, o.timeout)
	if err != nil {
		return err
	}
	defer writer.close()
	conns, err := dialMany(o.addr, o.watchers, o.timeout)
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	set := func() (float64, error) {
		writer.send("SET", key, "v")
		t0 := time.Now()
		if err := writer.flush(); err != nil {
			return 0, err
		}
		if err := writer.expect("OK"); err != nil {
			return 0, fmt.Errorf("SET: %v", err)
		}
		return float64(time.Since(t0).Nanoseconds()) / 1000, nil
	}
	var base, timed []float64
	for r := 0; r < o.repeat; r++ {
		us, err := set() // nobody watches the key now
		if err != nil {
			return err
		}
		base = append(base, us)
		for i, c := range conns {
			c.send("UNWATCH")
			c.send("WATCH", key)
			if err := c.flush(); err != nil {
				return fmt.Errorf("WATCH on connection %d: %v", i+1, err)
			}
		}
		for i, c := range conns {
			if err := c.expect("OK"); err == nil {
				err = c.expect("OK")
			}
			if err != nil {
				return fmt.Errorf("UNWATCH+WATCH on connection %d: %v", i+1, err)
			}
		}
		if us, err = set(); err != nil {
			return err
		}
		timed = append(timed, us)
		// A touched watcher must abort.
		c := conns[len(conns)-1]
		c.send("MULTI")
		c.send("EXEC")
		if err := c.flush(); err != nil {
			return err
		}
		if err := c.expect("OK"); err != nil {
			return fmt.Errorf("MULTI: %v", err)
		}
		kind, text, err := c.readLine()
		if err != nil {
			return err
		}
		if kind != '*' || text != "-1" {
			return fmt.Errorf("EXEC of a touched watcher replied %c%s, want *-1", kind, text)
		}
	}
	fmt.Fprintf(stdout, "RESULT mode=touch watchers=%d repeat=%d set_us=%.1f set_us_min=%.1f set_us_max=%.1f base_us=%.1f\n",
		o.watchers, o.repeat, median(timed), minOf(timed), maxOf(timed), median(base))
	return nil
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func minOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []float64) float64 {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
