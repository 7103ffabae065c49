package cluster

import "testing"

func TestCRC16CheckValue(t *testing.T) {
	if got := CRC16([]byte("123456789")); got != 0x31c3 {
		t.Fatalf("CRC16(123456789) = %#x, want 0x31c3", got)
	}
}

// Values from redis-server 7.0.15's CLUSTER KEYSLOT.
func TestKeyHashSlot(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want int
	}{
		{"foo", 12182},
		{"bar", 5061},
		{"", 0},
		{"{user1000}.following", 3443},
		{"{user1000}.followers", 3443},
		{"user1000", 3443},
		{"foo{}{bar}", 8363},
		{"foo{{bar}}zap", 4015},
		{"foo{bar}{zap}", 5061},
		{"{foo", 13308},
	} {
		if got := KeyHashSlot([]byte(tc.key)); got != tc.want {
			t.Errorf("KeyHashSlot(%q) = %d, want %d", tc.key, got, tc.want)
		}
	}
}

func FuzzKeyHashSlot(f *testing.F) {
	for _, s := range []string{"", "{", "}", "{}", "a{b}c", "{{}}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, key []byte) {
		if s := KeyHashSlot(key); s < 0 || s >= Slots {
			t.Fatalf("slot %d out of range", s)
		}
	})
}
