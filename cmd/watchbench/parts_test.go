package main

import (
	"bufio"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestReadReply(t *testing.T) {
	tests := []struct {
		in      string
		want    string // reply.String() of the result
		wantErr bool
	}{
		{"+OK\r\n", `"OK"`, false},
		{"-ERR boom\r\n", `"ERR boom"`, false},
		{":-42\r\n", "-42", false},
		{"$3\r\nabc\r\n", `"abc"`, false},
		{"$0\r\n\r\n", `""`, false},
		{"$-1\r\n", "(nil)", false},
		{"*-1\r\n", "(nil array)", false},
		{"*2\r\n+OK\r\n:1\r\n", "array of 2", false},
		{"*1\r\n*1\r\n$1\r\nx\r\n", "array of 1", false},
		{"$3\r\nabcde", "", true},                           // payload not followed by CRLF
		{"$5\r\nab", "", true},                              // truncated
		{"$-2\r\n", "", true},                               // bad length
		{"$x\r\n", "", true},                                // bad length
		{":1x\r\n", "", true},                               // bad integer
		{"*-5\r\n", "", true},                               // bad array length
		{"*99999999\r\n", "", true},                         // array too long
		{"?\r\n", "", true},                                 // unknown type
		{"\r\n", "", true},                                  // empty line
		{"+OK\n", "", true},                                 // LF only
		{"", "", true},                                      // EOF
		{strings.Repeat("*1\r\n", 20) + ":1\r\n", "", true}, // nested too deep
	}
	for _, tt := range tests {
		r, err := readReply(bufio.NewReader(strings.NewReader(tt.in)), 0)
		if (err != nil) != tt.wantErr {
			t.Errorf("readReply(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && r.String() != tt.want {
			t.Errorf("readReply(%q) = %s, want %s", tt.in, r, tt.want)
		}
	}
}

func TestReadReplyEOFIsNotProtocolError(t *testing.T) {
	_, err := readReply(bufio.NewReader(strings.NewReader("")), 0)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("got %v, want io.EOF", err)
	}
}

func TestCounterValue(t *testing.T) {
	tests := []struct {
		r       reply
		want    int64
		wantErr bool
	}{
		{reply{kind: '$', n: -1}, 0, false},
		{reply{kind: '$', n: 2, str: []byte("41")}, 41, false},
		{reply{kind: '$', n: 3, str: []byte("abc")}, 0, true},
		{reply{kind: '-', str: []byte("WRONGTYPE x")}, 0, true},
		{reply{kind: ':', n: 5}, 0, true},
	}
	for _, tt := range tests {
		got, err := counterValue(tt.r)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("counterValue(%v) = %d, %v; want %d, error %v", tt.r, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestCompareCounters(t *testing.T) {
	tests := []struct {
		name              string
		keys              []string
		counters, commits []int64
		wantOK            bool
		wantDetail        string
	}{
		{"equal one", []string{"k"}, []int64{7}, []int64{7}, true, "k = 7 = commits"},
		{"equal many", []string{"a", "b"}, []int64{1, 0}, []int64{1, 0}, true, "2 counters"},
		{"lost", []string{"k"}, []int64{6}, []int64{7}, false, "1 lost"},
		{"phantom", []string{"k"}, []int64{9}, []int64{7}, false, "2 phantom"},
		{"swapped keys", []string{"a", "b"}, []int64{1, 2}, []int64{2, 1}, false, "a = 1 but 2 commits"},
		{"length mismatch", []string{"a", "b"}, []int64{1}, []int64{1, 1}, false, "internal error"},
		{"many bad", []string{"a", "b", "c", "d", "e", "f", "g"}, make([]int64, 7), []int64{1, 1, 1, 1, 1, 1, 1}, false, "..."},
	}
	for _, tt := range tests {
		got := compareCounters(tt.keys, tt.counters, tt.commits)
		if got.ok != tt.wantOK || !strings.Contains(got.detail, tt.wantDetail) {
			t.Errorf("%s: got %+v, want ok=%v and detail containing %q", tt.name, got, tt.wantOK, tt.wantDetail)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, name := range modeNames {
		m, ok := parseMode(name)
		if !ok || m.String() != name {
			t.Errorf("parseMode(%q) = %v, %v", name, m, ok)
		}
	}
	for _, bad := range []string{"", "watch", "WATCH-HOT", "lua "} {
		if _, ok := parseMode(bad); ok {
			t.Errorf("parseMode(%q) accepted", bad)
		}
	}
}

func TestHistogramBuckets(t *testing.T) {
	prev := -1
	for v := uint64(0); v < 1<<20; v += 1 + v/512 {
		b := bucketOf(v)
		if b < prev {
			t.Fatalf("bucketOf(%d) = %d < bucketOf of a smaller value (%d)", v, b, prev)
		}
		prev = b
		mid := bucketMid(b)
		if diff := float64(mid) - float64(v); diff > 0.008*float64(v)+1 || -diff > 0.008*float64(v)+1 {
			t.Fatalf("bucketMid(bucketOf(%d)) = %d: more than 0.8%% off", v, mid)
		}
	}
	if b := bucketOf(1 << 62); b != histBuckets-1 {
		t.Fatalf("huge value in bucket %d, want the last (%d)", b, histBuckets-1)
	}
}

func TestHistogramQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h, h1, h2 histogram
	samples := make([]time.Duration, 10001)
	for i := range samples {
		samples[i] = time.Duration(rng.ExpFloat64() * float64(200*time.Microsecond))
		h.record(samples[i])
		if i%2 == 0 {
			h1.record(samples[i])
		} else {
			h2.record(samples[i])
		}
	}
	h1.merge(&h2)
	slices.Sort(samples)
	for _, q := range []float64{0.5, 0.9, 0.99, 1} {
		exact := samples[int(q*float64(len(samples)-1)+0.5)]
		for _, hh := range []*histogram{&h, &h1} {
			got := hh.quantile(q)
			if d := float64(got - exact); d > 0.01*float64(exact)+10 || -d > 0.01*float64(exact)+10 {
				t.Errorf("quantile(%v) = %v, exact %v", q, got, exact)
			}
		}
	}
	var empty histogram
	if empty.quantile(0.5) != 0 {
		t.Error("quantile of an empty histogram is not 0")
	}
	var neg histogram
	neg.record(-time.Second)
	if neg.quantile(1) != 0 {
		t.Error("a negative sample is not clamped to 0")
	}
}
