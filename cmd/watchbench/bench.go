package main

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// mode is one of the workloads.
type mode int

const (
	modeWatchHot mode = iota
	modeWatchMany
	modeLua
	modeMultiIncr
)

var modeNames = [...]string{"watch-hot", "watch-many", "lua", "multi-incr"}

func (m mode) String() string { return modeNames[m] }

// parseMode returns the mode called name.
func parseMode(name string) (mode, bool) {
	for i, n := range modeNames {
		if n == name {
			return mode(i), true
		}
	}
	return 0, false
}

// luaIncr is the increment of -mode lua: the same GET and SET as the WATCH
// loop, made atomic by the script instead of by WATCH.
const luaIncr = `local v = tonumber(redis.call('GET', KEYS[1]) or '0') + 1
redis.call('SET', KEYS[1], v)
return v`

// chunk is how many keys one DEL or one pipelined batch of GETs carries.
const chunk = 500

// counterKeys returns the names of the counters of o.
func counterKeys(o options) []string {
	if o.mode != modeWatchMany {
		return []string{o.prefix + ":hot"}
	}
	keys := make([]string, o.keys)
	for i := range keys {
		keys[i] = o.prefix + ":many:" + strconv.Itoa(i)
	}
	return keys
}

// bench runs one measurement. It returns an error when the run could not be
// set up (no server, no scripting); errors during the run are counted in the
// result.
func bench(o options) (*result, error) {
	ctl, err := dial(o.addr, o.timeout)
	if err != nil {
		return nil, err
	}
	defer ctl.Close()
	keys := counterKeys(o)
	if err := deleteKeys(ctl, keys); err != nil {
		return nil, fmt.Errorf("resetting the counters: %w", err)
	}
	var sha []byte
	if o.mode == modeLua {
		if sha, err = loadScript(ctl); err != nil {
			return nil, err
		}
	}

	bkeys := make([][]byte, len(keys))
	for i, k := range keys {
		bkeys[i] = []byte(k)
	}
	workers := make([]*worker, o.clients)
	defer func() {
		for _, w := range workers {
			if w != nil {
				w.c.Close()
			}
		}
	}()
	for i := range workers {
		c, err := dial(o.addr, o.timeout)
		if err != nil {
			return nil, fmt.Errorf("client %d: %w", i, err)
		}
		workers[i] = &worker{
			c: c, mode: o.mode, keys: bkeys, sha: sha,
			counts: make([]int64, len(keys)),
			rng:    rand.New(rand.NewPCG(uint64(i)+1, uint64(time.Now().UnixNano()))),
		}
	}

	var stop atomic.Bool
	var stopAt time.Time
	var wg sync.WaitGroup
	start := time.Now()
	timer := time.AfterFunc(o.duration, func() {
		stopAt = time.Now()
		stop.Store(true)
	})
	defer timer.Stop()
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop(&stop)
		}()
	}
	wg.Wait()
	res := &result{opts: o, window: o.duration}
	if stop.Load() { // the store happens after stopAt is written
		res.window = stopAt.Sub(start)
	}

	commits := make([]int64, len(keys))
	for _, w := range workers {
		res.add(w)
		for i, n := range w.counts {
			commits[i] += n
		}
	}
	if res.errors > 0 {
		res.check = checkResult{skipped: true, detail: "not checked: some clients failed"}
		return res, nil
	}
	counters, err := readCounters(ctl, keys)
	if err != nil {
		return nil, fmt.Errorf("reading the counters back: %w", err)
	}
	res.check = compareCounters(keys, counters, commits)
	if res.check.ok {
		if err := deleteKeys(ctl, keys); err != nil {
			return nil, fmt.Errorf("deleting the counters: %w", err)
		}
	}
	return res, nil
}

// deleteKeys deletes keys, chunk keys per DEL.
func deleteKeys(c *conn, keys []string) error {
	for i := 0; i < len(keys); i += chunk {
		args := append([]string{"DEL"}, keys[i:min(i+chunk, len(keys))]...)
		r, err := c.do(args...)
		if err != nil {
			return err
		}
		if r.isError() {
			return serverError(r.str)
		}
	}
	return nil
}

// loadScript loads luaIncr and returns its SHA1.
func loadScript(c *conn) ([]byte, error) {
	r, err := c.do("SCRIPT", "LOAD", luaIncr)
	if err != nil {
		return nil, err
	}
	if r.kind != '$' || r.isNull() {
		return nil, fmt.Errorf("SCRIPT LOAD failed: %s", r)
	}
	return r.str, nil
}

// readCounters GETs every key (pipelined, chunk at a time); a missing key
// reads as 0.
func readCounters(c *conn, keys []string) ([]int64, error) {
	vals := make([]int64, 0, len(keys))
	for i := 0; i < len(keys); i += chunk {
		part := keys[i:min(i+chunk, len(keys))]
		for _, k := range part {
			c.sendStrings("GET", k)
		}
		if err := c.flush(); err != nil {
			return nil, err
		}
		for range part {
			r, err := c.read()
			if err != nil {
				return nil, err
			}
			v, err := counterValue(r)
			if err != nil {
				return nil, err
			}
			vals = append(vals, v)
		}
	}
	return vals, nil
}

// worker is one client's state and tallies.
type worker struct {
	c      *conn
	mode   mode
	keys   [][]byte
	sha    []byte
	rng    *rand.Rand
	num    []byte // scratch for the new counter value
	counts []int64
	hist   histogram

	commits, aborts, abandoned int64
	inWindow                   int64 // commits that completed before stop was set
	abortsInWindow             int64
	err                        error
}

// loop increments counters until stop is set or an error happens.
func (w *worker) loop(stop *atomic.Bool) {
	for !stop.Load() {
		k := 0
		if len(w.keys) > 1 {
			k = w.rng.IntN(len(w.keys))
		}
		start := time.Now()
		committed, err := w.increment(w.keys[k], stop)
		if err != nil {
			w.err = err
			return
		}
		if !committed {
			w.abandoned++
			continue
		}
		w.hist.record(time.Since(start))
		w.commits++
		w.counts[k]++
		if !stop.Load() {
			w.inWindow++
		}
	}
}

// increment adds one to key, retrying while the transaction aborts. It
// returns false when it gave up because stop was set between attempts.
func (w *worker) increment(key []byte, stop *atomic.Bool) (bool, error) {
	for attempt := 0; ; attempt++ {
		if attempt > 0 && stop.Load() {
			return false, nil
		}
		var done bool
		var err error
		switch w.mode {
		case modeWatchHot, modeWatchMany:
			done, err = w.watchAttempt(key)
		case modeLua:
			done, err = w.luaAttempt(key)
		case modeMultiIncr:
			done, err = w.multiIncrAttempt(key)
		}
		if err != nil || done {
			return done, err
		}
		w.aborts++
		if !stop.Load() {
			w.abortsInWindow++
		}
	}
}

var (
	cmdWatch = []byte("WATCH")
	cmdGet   = []byte("GET")
	cmdMulti = []byte("MULTI")
	cmdSet   = []byte("SET")
	cmdIncr  = []byte("INCR")
	cmdExec  = []byte("EXEC")
	cmdEval  = []byte("EVALSHA")
	argOne   = []byte("1")
)

// watchAttempt is WATCH k; GET k; MULTI; SET k v+1; EXEC. It reports
// whether EXEC committed.
func (w *worker) watchAttempt(key []byte) (bool, error) {
	c := w.c
	c.send(cmdWatch, key)
	if err := w.flushExpect("WATCH", '+'); err != nil {
		return false, err
	}
	c.send(cmdGet, key)
	if err := c.flush(); err != nil {
		return false, err
	}
	r, err := c.read()
	if err != nil {
		return false, err
	}
	v, err := counterValue(r)
	if err != nil {
		return false, err
	}
	w.num = strconv.AppendInt(w.num[:0], v+1, 10)
	c.send(cmdMulti)
	c.send(cmdSet, key, w.num)
	c.send(cmdExec)
	return w.finishTx("SET", '+')
}

// multiIncrAttempt is MULTI; INCR k; EXEC.
func (w *worker) multiIncrAttempt(key []byte) (bool, error) {
	c := w.c
	c.send(cmdMulti)
	c.send(cmdIncr, key)
	c.send(cmdExec)
	return w.finishTx("INCR", ':')
}

// luaAttempt is EVALSHA sha 1 k; a NOSCRIPT reply (script cache flushed)
// loads the script again and counts as a retry.
func (w *worker) luaAttempt(key []byte) (bool, error) {
	c := w.c
	c.send(cmdEval, w.sha, argOne, key)
	if err := c.flush(); err != nil {
		return false, err
	}
	r, err := c.read()
	if err != nil {
		return false, err
	}
	switch {
	case r.kind == ':':
		return true, nil
	case r.isError() && len(r.str) >= 8 && string(r.str[:8]) == "NOSCRIPT":
		w.sha, err = loadScript(c)
		return false, err
	case r.isError():
		return false, serverError(r.str)
	}
	return false, fmt.Errorf("unexpected reply to EVALSHA: %s", r)
}

// flushExpect flushes one command and checks its reply is of kind.
func (w *worker) flushExpect(name string, kind byte) error {
	if err := w.c.flush(); err != nil {
		return err
	}
	return w.expect(name, kind)
}

func (w *worker) expect(name string, kind byte) error {
	r, err := w.c.read()
	switch {
	case err != nil:
		return err
	case r.isError():
		return fmt.Errorf("%s: %w", name, serverError(r.str))
	case r.kind != kind:
		return fmt.Errorf("unexpected reply to %s: %s", name, r)
	}
	return nil
}

// finishTx flushes MULTI, the one queued command and EXEC, and reads their
// replies; the queued command's result must be of kind. A null EXEC reply
// is an abort (false, nil).
func (w *worker) finishTx(queued string, kind byte) (bool, error) {
	c := w.c
	if err := c.flush(); err != nil {
		return false, err
	}
	if err := w.expect("MULTI", '+'); err != nil {
		return false, err
	}
	if err := w.expect(queued, '+'); err != nil { // +QUEUED
		return false, err
	}
	r, err := c.read()
	switch {
	case err != nil:
		return false, err
	case r.isNull():
		return false, nil
	case r.isError():
		return false, fmt.Errorf("EXEC: %w", serverError(r.str))
	case r.kind != '*' || len(r.elems) != 1:
		return false, fmt.Errorf("unexpected reply to EXEC: %s", r)
	case r.elems[0].isError():
		return false, fmt.Errorf("%s inside EXEC: %w", queued, serverError(r.elems[0].str))
	case r.elems[0].kind != kind:
		return false, fmt.Errorf("unexpected reply to %s inside EXEC: %s", queued, r.elems[0])
	}
	return true, nil
}

// checkResult is the outcome of the counter check.
type checkResult struct {
	ok      bool
	skipped bool
	detail  string
}

// maxListed bounds how many mismatching counters a failed check names.
const maxListed = 5

// compareCounters compares each counter with the commits made on it.
func compareCounters(keys []string, counters, commits []int64) checkResult {
	if len(counters) != len(keys) || len(commits) != len(keys) {
		return checkResult{detail: "internal error: counter and commit tallies differ in length"}
	}
	var bad []string
	var total, sum int64
	for i, k := range keys {
		total += commits[i]
		sum += counters[i]
		if counters[i] == commits[i] {
			continue
		}
		if len(bad) < maxListed {
			what := "lost"
			if counters[i] > commits[i] {
				what = "phantom"
			}
			bad = append(bad, fmt.Sprintf("%s = %d but %d commits (%d %s)",
				k, counters[i], commits[i], absDiff(counters[i], commits[i]), what))
		} else if len(bad) == maxListed {
			bad = append(bad, "...")
		}
	}
	if len(bad) > 0 {
		return checkResult{detail: fmt.Sprint(bad)}
	}
	if len(keys) == 1 {
		return checkResult{ok: true, detail: fmt.Sprintf("%s = %d = commits", keys[0], counters[0])}
	}
	return checkResult{ok: true, detail: fmt.Sprintf("%d counters each equal their commits (sum %d = %d)", len(keys), sum, total)}
}

func absDiff(a, b int64) int64 {
	if a > b {
		return a - b
	}
	return b - a
}
