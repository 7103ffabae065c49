package script

import (
	"reflect"

	lua "github.com/yuin/gopher-lua"
)

// The one place this package looks inside gopher-lua's private state.
//
// Lua 5.1 names the faulty variable of a runtime error ("attempt to call
// local 'x' (a nil value)") from the instruction the failing frame is
// executing (ldebug.c currentpc). gopher-lua keeps that instruction index
// in the unexported callFrame behind lua.Debug and offers no accessor, so
// framePC reads it with reflect: Debug.frame (*callFrame) and its Pc field,
// which is the index of the next instruction (mainLoop increments it before
// executing one). Only reading is done, no unsafe.
//
// If a gopher-lua release renames or retypes these fields, frameLayoutOK is
// false, framePC answers -1 and error texts lose their variable names (they
// stay correct otherwise); TestFrameLayout fails loudly in that case.

var (
	frameField    []int // index path of Debug.frame
	framePcField  []int // index path of callFrame.Pc
	frameLayoutOK bool
)

func init() {
	dt := reflect.TypeOf(lua.Debug{})
	f, ok := dt.FieldByName("frame")
	if !ok || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct {
		return
	}
	pc, ok := f.Type.Elem().FieldByName("Pc")
	if !ok || pc.Type.Kind() != reflect.Int {
		return
	}
	frameField, framePcField, frameLayoutOK = f.Index, pc.Index, true
}

// framePC returns the index of the instruction the Lua frame of dbg is
// executing (or last executed, for a frame that called another), or -1
// when it cannot be known (a Go function, a frame not started, or an
// unexpected gopher-lua layout).
func framePC(dbg *lua.Debug) int {
	if !frameLayoutOK || dbg == nil {
		return -1
	}
	fr := reflect.ValueOf(dbg).Elem().FieldByIndex(frameField)
	if fr.IsNil() {
		return -1
	}
	return int(fr.Elem().FieldByIndex(framePcField).Int()) - 1
}
