package expire

import (
	"testing"
	"time"
)

func TestFreezeAdvance(t *testing.T) {
	c := NewClock()
	c.Freeze()
	t0 := c.Now()
	time.Sleep(2 * time.Millisecond)
	if !c.Now().Equal(t0) {
		t.Fatal("a frozen clock must not move")
	}
	c.Advance(1500 * time.Millisecond)
	if got := c.Now().Sub(t0); got != 1500*time.Millisecond {
		t.Fatalf("advanced by %v", got)
	}
	c.Set(time.UnixMilli(1_000_000))
	if c.UnixMilli() != 1_000_000 {
		t.Fatalf("set: %d", c.UnixMilli())
	}
	c.Unfreeze()
	if d := c.UnixMilli() - 1_000_000; d < 0 || d > 1000 {
		t.Fatalf("unfreeze should continue from the frozen time, off by %d ms", d)
	}
	c.Reset()
	if d := time.Since(c.Now()); d < -time.Second || d > time.Second {
		t.Fatalf("reset clock is off the wall clock by %v", d)
	}
}

func TestOnChange(t *testing.T) {
	c := NewClock()
	n := 0
	c.OnChange(func() { n++ })
	c.Advance(time.Second)
	c.Set(time.Now())
	if n != 2 {
		t.Fatalf("callbacks ran %d times, want 2", n)
	}
}
