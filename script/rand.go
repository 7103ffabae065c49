package script

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// rand48 is Redis's rand.c: the 48-bit linear congruential generator of
// drand48 (x = 0x5DEECE66D*x + 0xB mod 2^48), used by math.random so that
// a seed gives the same sequence on every platform. Its state is one per
// process and survives from one script to the next.
type rand48 struct{ x uint64 }

const (
	rand48Mult = 0x5DEECE66D
	rand48Add  = 0xB
	rand48Mask = 1<<48 - 1
	// rand48Max is REDIS_LRAND48_MAX (INT32_MAX).
	rand48Max = math.MaxInt32
)

func newRand48() *rand48 { return &rand48{x: 0x1234ABCD330E} }

// next is redisLrand48: the top 31 bits of the next state.
func (r *rand48) next() int32 {
	r.x = (rand48Mult*r.x + rand48Add) & rand48Mask
	return int32(r.x >> 17)
}

// seed is redisSrand48.
func (r *rand48) seed(v int32) {
	u := uint32(v)
	r.x = uint64(u>>16)<<32 | uint64(u&0xffff)<<16 | 0x330E
}

// mathRandom is Redis's math.random (redis_math_random).
func (vm *VM) mathRandom(L *lua.LState) int {
	if vm.run == nil {
		luaError(L, "math.random can only be called inside a script invocation")
	}
	r := float64(vm.shared.rand.next()%rand48Max) / rand48Max
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := checkInt(L, 1)
		if u < 1 {
			argError(L, 1, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l := checkInt(L, 1)
		u := checkInt(L, 2)
		if l > u {
			argError(L, 2, "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
	default:
		luaError(L, "wrong number of arguments")
	}
	return 1
}

// mathRandomseed is Redis's math.randomseed (redis_math_randomseed).
func (vm *VM) mathRandomseed(L *lua.LState) int {
	if vm.run == nil {
		luaError(L, "math.randomseed can only be called inside a script invocation")
	}
	vm.shared.rand.seed(int32(checkInt(L, 1)))
	return 0
}
