package db

import (
	"fmt"
	"testing"
)

// The stream mutators against a recording Observer: XAdd, XDel and XTrim
// end in exactly one Modified per modification and none for their no-ops;
// the group and PEL writes never call Modified (Redis 7.0.15 does not
// signal them) but raise their events and count as changes.

func TestStreamMutatorsSignal(t *testing.T) {
	id := func(ms uint64) StreamID { return StreamID{ms, 0} }
	add := func(d *DB, ms uint64) {
		if _, _, _, err := d.XAdd([]byte("s"), XAddArgs{ID: id(ms), IDGiven: true, SeqGiven: true, FV: fv("f", "v")}); err != nil {
			t.Fatal(err)
		}
	}
	rows := []struct {
		name     string
		run      func(d *DB) error
		modified int
		events   string
		dirty    int64
	}{
		{"XAdd", func(d *DB) error { add(d, 9); return nil }, 1, "[xadd:s]", 1},
		{"XAdd creating", func(d *DB) error {
			_, _, _, err := d.XAdd([]byte("new"), XAddArgs{FV: fv("f", "v")})
			return err
		}, 1, "[new:new xadd:new]", 1},
		{"XAdd trimming", func(d *DB) error {
			_, _, _, err := d.XAdd([]byte("s"), XAddArgs{FV: fv("f", "v"), Trim: &TrimSpec{MaxLen: 1}})
			return err
		}, 1, "[xadd:s xtrim:s]", 1},
		{"XAdd too small (no-op)", func(d *DB) error {
			_, _, _, err := d.XAdd([]byte("s"), XAddArgs{ID: id(1), IDGiven: true, SeqGiven: true, FV: fv("f", "v")})
			if err != ErrStreamIDTooSmall {
				return fmt.Errorf("err %v", err)
			}
			return nil
		}, 0, "[]", 0},
		{"XAdd NOMKSTREAM missing (no-op)", func(d *DB) error {
			_, _, _, err := d.XAdd([]byte("nosuch"), XAddArgs{NoMkStream: true, FV: fv("f", "v")})
			return err
		}, 0, "[]", 0},
		{"XDel", func(d *DB) error { _, err := d.XDel([]byte("s"), []StreamID{id(1), id(2), id(9)}); return err }, 1, "[xdel:s]", 2},
		{"XDel missing (no-op)", func(d *DB) error { _, err := d.XDel([]byte("s"), []StreamID{id(9)}); return err }, 0, "[]", 0},
		{"XTrim", func(d *DB) error { _, err := d.XTrim([]byte("s"), TrimSpec{MaxLen: 1}); return err }, 1, "[xtrim:s]", 2},
		{"XTrim nothing (no-op)", func(d *DB) error { _, err := d.XTrim([]byte("s"), TrimSpec{MaxLen: 5}); return err }, 0, "[]", 0},
		{"XSetID", func(d *DB) error { return d.XSetID([]byte("s"), id(50), -1, StreamID{}) }, 0, "[xsetid:s]", 1},
		{"XGroupCreate", func(d *DB) error { return d.XGroupCreate([]byte("s"), []byte("g2"), id(0), false, -1, false) }, 0, "[xgroup-create:s]", 1},
		{"XGroupCreate MKSTREAM", func(d *DB) error { return d.XGroupCreate([]byte("m"), []byte("g"), id(0), true, -1, true) }, 1, "[new:m xgroup-create:m]", 2},
		{"XGroupCreate exists (no-op)", func(d *DB) error {
			if err := d.XGroupCreate([]byte("s"), []byte("g"), id(0), false, -1, false); err != ErrStreamGroupExists {
				return fmt.Errorf("err %v", err)
			}
			return nil
		}, 0, "[]", 0},
		{"XGroupSetID", func(d *DB) error { return d.XGroupSetID([]byte("s"), []byte("g"), id(0), false, -1) }, 0, "[xgroup-setid:s]", 1},
		{"XGroupCreateConsumer", func(d *DB) error {
			_, err := d.XGroupCreateConsumer([]byte("s"), []byte("g"), []byte("c9"))
			return err
		}, 0, "[xgroup-createconsumer:s]", 1},
		{"XGroupCreateConsumer exists (no-op)", func(d *DB) error { _, err := d.XGroupCreateConsumer([]byte("s"), []byte("g"), []byte("c")); return err }, 0, "[]", 0},
		{"XGroupDelConsumer", func(d *DB) error { _, err := d.XGroupDelConsumer([]byte("s"), []byte("g"), []byte("c")); return err }, 0, "[xgroup-delconsumer:s]", 1},
		{"XGroupDelConsumer missing (no-op)", func(d *DB) error { _, err := d.XGroupDelConsumer([]byte("s"), []byte("g"), []byte("x")); return err }, 0, "[]", 0},
		{"XGroupDestroy", func(d *DB) error { _, err := d.XGroupDestroy([]byte("s"), []byte("g")); return err }, 0, "[xgroup-destroy:s]", 1},
		{"XGroupDestroy missing (no-op)", func(d *DB) error { _, err := d.XGroupDestroy([]byte("s"), []byte("x")); return err }, 0, "[]", 0},
		{"XAck", func(d *DB) error { _, err := d.XAck([]byte("s"), []byte("g"), []StreamID{id(1), id(7)}); return err }, 0, "[]", 1},
		{"XAck unknown (no-op)", func(d *DB) error { _, err := d.XAck([]byte("s"), []byte("g"), []StreamID{id(7)}); return err }, 0, "[]", 0},
		{"group session deliver", func(d *DB) error {
			gs, ok, err := d.OpenGroup([]byte("s"), []byte("g"))
			if !ok || err != nil {
				return fmt.Errorf("open: %v %v", ok, err)
			}
			gs.Consumer([]byte("new"), true)
			gs.Deliver(id(3), false)
			gs.End()
			return nil
		}, 0, "[xgroup-createconsumer:s]", 2},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			ks, rec := newTestKS(t)
			d := ks.DB(0)
			for ms := uint64(1); ms <= 3; ms++ {
				add(d, ms)
			}
			if err := d.XGroupCreate([]byte("s"), []byte("g"), StreamID{}, false, -1, false); err != nil {
				t.Fatal(err)
			}
			gs, _, _ := d.OpenGroup([]byte("s"), []byte("g"))
			gs.Consumer([]byte("c"), true)
			gs.Deliver(id(1), false)
			gs.End()
			rec.modified, rec.events = nil, nil
			dirty := ks.Stats.Dirty
			if err := r.run(d); err != nil {
				t.Fatal(err)
			}
			if len(rec.modified) != r.modified || fmt.Sprint(rec.events) != r.events || ks.Stats.Dirty-dirty != r.dirty {
				t.Fatalf("Modified %v, events %v, dirty +%d; want %d Modified, events %s, dirty +%d",
					rec.modified, rec.events, ks.Stats.Dirty-dirty, r.modified, r.events, r.dirty)
			}
		})
	}
}
