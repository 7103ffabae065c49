package cluster

import (
	"strings"
	"testing"
)

func TestConfigRoundTrip(t *testing.T) {
	id := strings.Repeat("a", 40)
	other := strings.Repeat("b", 40)
	st := NewState(id, 7000, 17000)
	st.AddNode(&Node{ID: other, IP: "127.0.0.1", Port: 7001, CPort: 17001, Flags: FlagMaster, ConfigEpoch: 3})
	for j := 0; j < 100; j++ {
		st.AddSlot(st.Myself, j)
	}
	st.AddSlot(st.Myself, 200)
	st.AddSlot(st.Lookup(other), 300)
	st.SetMigrating(5, st.Lookup(other))
	st.SetImporting(300, st.Lookup(other))
	st.CurrentEpoch = 3
	want := id + " :7000@17000 myself,master - 0 0 0 connected 0-99 200 [5->-" + other + "] [300-<-" + other + "]\n" +
		other + " 127.0.0.1:7001@17001 master - 0 0 3 disconnected 300\n" +
		"vars currentEpoch 3 lastVoteEpoch 0\n"
	if got := string(st.Config()); got != want {
		t.Fatalf("Config:\n%s\nwant:\n%s", got, want)
	}
	back, _, err := ParseConfig(want)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(back.Config()); got != want {
		t.Fatalf("after ParseConfig:\n%s\nwant:\n%s", got, want)
	}
	if back.Myself.ID != id || back.Owner(300).ID != other || back.MigratingTo(5).ID != other {
		t.Fatal("ParseConfig lost the topology")
	}
}

func TestParseConfigRejects(t *testing.T) {
	for _, text := range []string{
		"",
		"vars currentEpoch 0 lastVoteEpoch 0\n",
		strings.Repeat("a", 40) + " :7000@17000 master - 0 0 0 connected\n", // no myself
		strings.Repeat("a", 40) + " 7000 myself,master - 0 0 0 connected\n", // no port
		strings.Repeat("a", 40) + " :7000@17000 myself,bogus - 0 0 0 connected\n",
		strings.Repeat("a", 40) + " :7000@17000 myself,master - 0 0 0 connected 16384\n",
	} {
		if _, _, err := ParseConfig(text); err == nil {
			t.Errorf("ParseConfig(%q) accepted it", text)
		}
	}
}

func TestStateHealth(t *testing.T) {
	st := NewState(NewNodeID(), 7000, 17000)
	st.UpdateState(true)
	if st.OK() {
		t.Fatal("a node without slots is ok")
	}
	for j := 0; j < Slots; j++ {
		st.AddSlot(st.Myself, j)
	}
	st.UpdateState(true)
	if !st.OK() || st.Health().Size != 1 || st.Health().Assigned != Slots {
		t.Fatalf("full node: ok=%v %+v", st.OK(), st.Health())
	}
	st.DelSlot(7)
	st.UpdateState(true)
	if st.OK() {
		t.Fatal("a missing slot with require-full-coverage is ok")
	}
	st.UpdateState(false)
	if !st.OK() {
		t.Fatal("a missing slot without require-full-coverage is not ok")
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add(strings.Repeat("a", 40) + " :7000@17000 myself,master - 0 0 0 connected 0-16383 [5->-" + strings.Repeat("b", 40) + "]\nvars currentEpoch 0 lastVoteEpoch 0\n")
	f.Add("x y z")
	f.Fuzz(func(t *testing.T, text string) {
		st, _, err := ParseConfig(text)
		if err != nil {
			return
		}
		back, _, err := ParseConfig(string(st.Config()))
		if err != nil {
			t.Fatalf("Config output does not parse: %v\n%s", err, st.Config())
		}
		_ = back
	})
}
