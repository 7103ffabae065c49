package cluster

import (
	"errors"
	"strconv"
	"strings"
)

// The nodes.conf format, which is CLUSTER NODES's (clusterGenNodesDescription)
// followed by a "vars" line (clusterSaveConfig), and its reader
// (clusterLoadConfig). One line per node:
//
//	<id> <ip>:<port>@<cport>[,<hostname>] <flags> <master-id|-> <ping-sent> <pong-received> <config-epoch> <link-state> <slot> ...
//
// where a slot is "n" or "a-b", and myself's line ends with the slots it
// migrates, "[n->-<id>]", or imports, "[n-<-<id>]".

// AppendNode appends n's line of CLUSTER NODES, without the newline
// (clusterGenNodeDescription).
func (st *State) AppendNode(b []byte, n *Node) []byte {
	b = append(b, n.ID...)
	b = append(b, ' ')
	b = append(b, n.IP...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(n.Port), 10)
	b = append(b, '@')
	b = strconv.AppendInt(b, int64(n.CPort), 10)
	if n.Hostname != "" {
		b = append(b, ',')
		b = append(b, n.Hostname...)
	}
	b = append(b, ' ')
	b = AppendFlags(b, n.Flags)
	b = append(b, ' ')
	if n.Master != nil {
		b = append(b, n.Master.ID...)
	} else {
		b = append(b, '-')
	}
	epoch := n.ConfigEpoch
	if n.IsReplica() && n.Master != nil {
		epoch = n.Master.ConfigEpoch
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, n.PingSent, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, n.PongReceived, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, epoch, 10)
	if n.Linked || n.Flags&FlagMyself != 0 {
		b = append(b, " connected"...)
	} else {
		b = append(b, " disconnected"...)
	}
	for _, r := range st.Ranges(n) {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(r[0]), 10)
		if r[1] != r[0] {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(r[1]), 10)
		}
	}
	if n.Flags&FlagMyself != 0 {
		for j := 0; j < Slots; j++ {
			if m := st.migrating[j]; m != nil {
				b = append(b, " ["...)
				b = strconv.AppendInt(b, int64(j), 10)
				b = append(b, "->-"...)
				b = append(b, m.ID...)
				b = append(b, ']')
			} else if m := st.importing[j]; m != nil {
				b = append(b, " ["...)
				b = strconv.AppendInt(b, int64(j), 10)
				b = append(b, "-<-"...)
				b = append(b, m.ID...)
				b = append(b, ']')
			}
		}
	}
	return b
}

// AppendFlags appends the flag words of f, comma-separated, or "noflags"
// (representClusterNodeFlags).
func AppendFlags(b []byte, f NodeFlags) []byte {
	n := len(b)
	for _, w := range flagWords {
		if f&w.f != 0 {
			if len(b) > n {
				b = append(b, ',')
			}
			b = append(b, w.word...)
		}
	}
	if len(b) == n {
		b = append(b, "noflags"...)
	}
	return b
}

// Description is CLUSTER NODES: one line per node, each ending in "\n";
// nodes in the handshake state are left out when noHandshake.
func (st *State) Description(noHandshake bool) []byte {
	var b []byte
	for _, n := range st.order {
		if noHandshake && n.Flags&FlagHandshake != 0 {
			continue
		}
		b = st.AppendNode(b, n)
		b = append(b, '\n')
	}
	return b
}

// Config is the content of nodes.conf (clusterSaveConfig).
func (st *State) Config() []byte {
	b := st.Description(true)
	b = append(b, "vars currentEpoch "...)
	b = strconv.AppendUint(b, st.CurrentEpoch, 10)
	b = append(b, " lastVoteEpoch "...)
	b = strconv.AppendUint(b, st.LastVoteEpoch, 10)
	b = append(b, '\n')
	return b
}

// ErrCorruptConfig is the error of a nodes.conf that cannot be read
// (clusterLoadConfig's fmterr).
var ErrCorruptConfig = errors.New("Unrecoverable error: corrupted cluster config file.")

// ParseConfig reads nodes.conf text (clusterLoadConfig). Unknown "vars"
// are skipped (their names are returned for the log); a file without a
// myself line, with a line of fewer than eight fields or with a bad
// address, flag or slot is ErrCorruptConfig. Blank lines are skipped.
func ParseConfig(text string) (st *State, skipped []string, err error) {
	st = &State{nodes: map[string]*Node{}}
	node := func(id string) *Node {
		if len(id) != 40 {
			return nil
		}
		n := st.nodes[id]
		if n == nil {
			n = &Node{ID: id}
			st.AddNode(n)
		}
		return n
	}
	for _, line := range strings.Split(text, "\n") {
		argv := strings.Fields(line)
		if len(argv) == 0 {
			continue
		}
		if strings.EqualFold(argv[0], "vars") {
			for j := 1; j+1 < len(argv); j += 2 {
				v, _ := strconv.ParseUint(argv[j+1], 10, 64)
				switch strings.ToLower(argv[j]) {
				case "currentepoch":
					st.CurrentEpoch = v
				case "lastvoteepoch":
					st.LastVoteEpoch = v
				default:
					skipped = append(skipped, argv[j])
				}
			}
			continue
		}
		if len(argv) < 8 {
			return nil, nil, ErrCorruptConfig
		}
		n := node(argv[0])
		if n == nil {
			return nil, nil, ErrCorruptConfig
		}
		addr, host, _ := strings.Cut(argv[1], ",")
		colon := strings.LastIndexByte(addr, ':')
		if colon < 0 {
			return nil, nil, ErrCorruptConfig
		}
		n.IP, n.Hostname = addr[:colon], host
		port, bus, hasBus := strings.Cut(addr[colon+1:], "@")
		n.Port = atoi(port)
		if hasBus {
			n.CPort = atoi(bus)
		} else {
			n.CPort = n.Port + 10000
		}
		for _, w := range strings.Split(argv[2], ",") {
			switch strings.ToLower(w) {
			case "myself":
				if st.Myself != nil {
					return nil, nil, ErrCorruptConfig
				}
				st.Myself = n
				n.Flags |= FlagMyself
				n.Linked = true
			case "master":
				n.Flags |= FlagMaster
			case "slave":
				n.Flags |= FlagSlave
			case "fail?":
				n.Flags |= FlagPFail
			case "fail":
				n.Flags |= FlagFail
			case "handshake":
				n.Flags |= FlagHandshake
			case "noaddr":
				n.Flags |= FlagNoAddr
			case "nofailover":
				n.Flags |= FlagNoFailover
			case "noflags":
			default:
				return nil, nil, ErrCorruptConfig
			}
		}
		if argv[3] != "-" && argv[3] != "" && argv[3][0] != '-' {
			if n.Master = node(argv[3]); n.Master == nil {
				return nil, nil, ErrCorruptConfig
			}
		}
		n.ConfigEpoch, _ = strconv.ParseUint(argv[6], 10, 64)
		for _, a := range argv[8:] {
			if a[0] == '[' {
				s, rest, ok := strings.Cut(a[1:], "-")
				slot, okSlot := slotNumber(s)
				if !ok || !okSlot || len(rest) < 3 {
					return nil, nil, ErrCorruptConfig
				}
				dir, other := rest[0], node(strings.TrimSuffix(rest[2:], "]"))
				if other == nil {
					return nil, nil, ErrCorruptConfig
				}
				if dir == '>' {
					st.migrating[slot] = other
				} else {
					st.importing[slot] = other
				}
				continue
			}
			lo, hi, isRange := strings.Cut(a, "-")
			if !isRange {
				hi = lo
			}
			start, ok1 := slotNumber(lo)
			stop, ok2 := slotNumber(hi)
			if !ok1 || !ok2 {
				return nil, nil, ErrCorruptConfig
			}
			for j := start; j <= stop; j++ {
				if st.slots[j] == nil {
					st.AddSlot(n, j)
				}
			}
		}
	}
	if st.Myself == nil {
		return nil, nil, ErrCorruptConfig
	}
	if max := st.maxEpoch(); max > st.CurrentEpoch {
		st.CurrentEpoch = max
	}
	return st, skipped, nil
}

// atoi is C's atoi for the digits Redis writes: 0 for anything else.
func atoi(s string) int {
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0
	}
	return v
}

// slotNumber parses a slot number of nodes.conf.
func slotNumber(s string) (int, bool) {
	v, err := strconv.Atoi(s)
	return v, err == nil && v >= 0 && v < Slots
}
