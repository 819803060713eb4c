package sense

/*
#include <sense.h>
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Held is a value the runtime holds for the host (a retained reference,
// as Lua's luaL_ref): any value — a function, a closure with its state, a
// list — kept alive until Release, whatever the program does with the
// name it had. Call calls a held function. Held values are not saved in
// snapshots (Restore releases them); a Held must not be used after its
// Runtime is closed. Not safe for concurrent use (it uses its Runtime).
type Held struct {
	rt *Runtime
	id uint64
}

// HoldGlobal holds the current value of the main program's variable (or
// builtin) name; StatusNotFound when nothing is bound to it.
func (r *Runtime) HoldGlobal(name string) (*Held, error) {
	defer runtime.KeepAlive(r)
	p, pl := cString(name)
	defer C.free(unsafe.Pointer(p))
	var id C.uint64_t
	var cerr *C.sense_error
	if err := check(C.sense_runtime_hold_global(r.ptr, p, pl, &id, &cerr), cerr); err != nil {
		return nil, err
	}
	return &Held{rt: r, id: uint64(id)}, nil
}

// HoldValue holds a copy of value (any value SetGlobal accepts) inside the
// runtime.
func (r *Runtime) HoldValue(value any) (*Held, error) {
	defer runtime.KeepAlive(r)
	v, err := newValue(value)
	if err != nil {
		return nil, err
	}
	defer C.sense_value_free(v)
	var id C.uint64_t
	var cerr *C.sense_error
	if err := check(C.sense_runtime_hold_value(r.ptr, v, &id, &cerr), cerr); err != nil {
		return nil, err
	}
	return &Held{rt: r, id: uint64(id)}, nil
}

// ID is the held value's id in the C API.
func (h *Held) ID() uint64 { return h.id }

// Value copies the held value out (a function comes out as Opaque).
func (h *Held) Value() (any, error) {
	defer runtime.KeepAlive(h.rt)
	return copied(func(v **C.sense_value, cerr **C.sense_error) uint32 {
		return C.sense_runtime_held_value(h.rt.ptr, C.uint64_t(h.id), v, cerr)
	})
}

// Call calls the held value (a function, closure, tool or builtin) with
// args, as Runtime.Call calls a named one.
func (h *Held) Call(args ...any) (any, error) {
	v, _, err := h.call(args, false)
	return v, err
}

// CallAndHold calls the held value and holds its result too, so a
// function it returns can be called in turn.
func (h *Held) CallAndHold(args ...any) (any, *Held, error) {
	return h.call(args, true)
}

func (h *Held) call(args []any, keep bool) (any, *Held, error) {
	defer runtime.KeepAlive(h.rt)
	cargs, err := newArgs(args)
	if err != nil {
		return nil, nil, err
	}
	defer cargs.free()
	var out *C.sense_value
	var heldID C.uint64_t
	var outHeld *C.uint64_t
	if keep {
		outHeld = &heldID
	}
	var cerr *C.sense_error
	st := C.sense_runtime_call_held(h.rt.ptr, C.uint64_t(h.id), cargs.ptr(), cargs.len(), &out, outHeld, &cerr)
	if err := check(st, cerr); err != nil {
		return nil, nil, err
	}
	defer C.sense_value_free(out)
	var held *Held
	if keep {
		held = &Held{rt: h.rt, id: uint64(heldID)}
	}
	return goValue(out), held, nil
}

// Release lets the runtime drop the value; the Held is invalid afterwards
// (releasing again gives StatusNotFound).
func (h *Held) Release() error {
	defer runtime.KeepAlive(h.rt)
	var cerr *C.sense_error
	return check(C.sense_runtime_release_held(h.rt.ptr, C.uint64_t(h.id), &cerr), cerr)
}
