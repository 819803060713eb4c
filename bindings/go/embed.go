package sense

/*
#include <sense.h>
#include <stdint.h>
#include <stdlib.h>

extern void senseGoHostFn(void *user_data, sense_call *call);
extern void senseGoFree(void *user_data);
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// The embedding calls: globals, calling Sense functions, agent members,
// agents held in arrays, holds, host functions that learn their caller,
// and pause reasons read without copying the whole value.

// SetGlobal binds the main program's variable name to value, as a
// top-level assignment would: nil, a bool, any integer type (unsigned
// values above math.MaxInt64 are an error), float32 or float64, a string,
// an Agent, or a slice or array of these ([]any, []string, ...). name must
// be an identifier that is not a keyword (StatusInvalidArgument). A global
// set on a new runtime before Restore is kept, replacing the snapshot's
// value of that name.
func (r *Runtime) SetGlobal(name string, value any) error {
	defer runtime.KeepAlive(r)
	p, pl := cString(name)
	defer C.free(unsafe.Pointer(p))
	return withValue(value, func(v *C.sense_value, cerr **C.sense_error) uint32 {
		return C.sense_runtime_set_global(r.ptr, p, pl, v, cerr)
	})
}

// Call calls the Sense function bound to name with args and returns its
// result. An error raised inside comes back as *Error with its location;
// a name bound to nothing gives Status StatusNotFound.
func (r *Runtime) Call(name string, args ...any) (any, error) {
	defer runtime.KeepAlive(r)
	cargs, err := newArgs(args)
	if err != nil {
		return nil, err
	}
	defer cargs.free()
	p, pl := cString(name)
	defer C.free(unsafe.Pointer(p))
	var out *C.sense_value
	var cerr *C.sense_error
	st := C.sense_runtime_call(r.ptr, p, pl, cargs.ptr(), cargs.len(), &out, &cerr)
	if err := check(st, cerr); err != nil {
		return nil, err
	}
	defer C.sense_value_free(out)
	return goValue(out), nil
}

// cArgs is a C array of owned C values made from Go arguments.
type cArgs struct {
	mem unsafe.Pointer
	n   int
}

// newArgs converts args into C memory (cgo forbids passing Go memory
// that holds C pointers); free it with free.
func newArgs(args []any) (cArgs, error) {
	size := len(args)
	if size == 0 {
		size = 1 // keep the C array non-empty; the count stays 0
	}
	mem := C.calloc(C.size_t(size), C.size_t(unsafe.Sizeof(uintptr(0))))
	a := cArgs{mem: mem}
	items := unsafe.Slice((**C.sense_value)(mem), size)
	for i, arg := range args {
		v, err := newValue(arg)
		if err != nil {
			a.free()
			return cArgs{}, err
		}
		items[i] = v
		a.n = i + 1
	}
	return a, nil
}

func (a cArgs) ptr() **C.sense_value { return (**C.sense_value)(a.mem) }
func (a cArgs) len() C.size_t        { return C.size_t(a.n) }

func (a cArgs) free() {
	for _, v := range unsafe.Slice((**C.sense_value)(a.mem), a.n) {
		C.sense_value_free(v)
	}
	C.free(a.mem)
}

// AgentAt finds the agent at path (array indexes, outermost first) inside
// the main program's variable name: AgentAt("team", 1, 0) is team[1][0].
func (r *Runtime) AgentAt(name string, path ...int) (Agent, error) {
	return r.agentAtPath(name, path, func(p *C.char, pl C.size_t, cpath *C.size_t, out *C.sense_agent, cerr **C.sense_error) uint32 {
		return C.sense_agent_lookup_path(r.ptr, p, pl, cpath, C.size_t(len(path)), out, cerr)
	})
}

// AgentInMember finds the agent at path inside member name of agent a:
// a coordinator's workers[2] is AgentInMember(boss, "workers", 2).
func (r *Runtime) AgentInMember(a Agent, name string, path ...int) (Agent, error) {
	return r.agentAtPath(name, path, func(p *C.char, pl C.size_t, cpath *C.size_t, out *C.sense_agent, cerr **C.sense_error) uint32 {
		return C.sense_agent_member_agent(r.ptr, a.id, p, pl, cpath, C.size_t(len(path)), out, cerr)
	})
}

// agentAtPath makes name and path C data for one of the agent lookups
// along a path of array indexes, and returns the agent it finds.
func (r *Runtime) agentAtPath(name string, path []int,
	lookup func(p *C.char, pl C.size_t, cpath *C.size_t, out *C.sense_agent, cerr **C.sense_error) uint32) (Agent, error) {
	defer runtime.KeepAlive(r)
	p, pl := cString(name)
	defer C.free(unsafe.Pointer(p))
	var out Agent
	cpath, err := cIndexPath(path)
	if err != nil {
		return out, err
	}
	defer C.free(unsafe.Pointer(cpath))
	var cerr *C.sense_error
	err = check(lookup(p, pl, cpath, &out.id, &cerr), cerr)
	return out, err
}

// cIndexPath copies an agent lookup's array indexes into C memory (NULL
// for an empty path; C.free it either way); a negative index is a
// StatusInvalidArgument error.
func cIndexPath(path []int) (*C.size_t, error) {
	if len(path) == 0 {
		return nil, nil
	}
	for _, x := range path {
		if x < 0 {
			return nil, &Error{Status: StatusInvalidArgument, Class: "SenseError", Message: "negative index in path"}
		}
	}
	cpath := (*C.size_t)(C.calloc(C.size_t(len(path)), C.size_t(unsafe.Sizeof(C.size_t(0)))))
	items := unsafe.Slice(cpath, len(path))
	for i, x := range path {
		items[i] = C.size_t(x)
	}
	return cpath, nil
}

// Member reads agent.name as Sense would: "status", "name",
// "pause_reason", "doc", or one of the agent's variables.
func (r *Runtime) Member(a Agent, name string) (any, error) {
	defer runtime.KeepAlive(r)
	p, pl := cString(name)
	defer C.free(unsafe.Pointer(p))
	return copied(func(v **C.sense_value, cerr **C.sense_error) uint32 {
		return C.sense_agent_member(r.ptr, a.id, p, pl, v, cerr)
	})
}

// Hold keeps the agent alive while the host holds it, even once no Sense
// variable refers to it. Holds are counted; each needs a Release.
func (r *Runtime) Hold(a Agent) error {
	defer runtime.KeepAlive(r)
	var cerr *C.sense_error
	return check(C.sense_agent_retain(r.ptr, a.id, &cerr), cerr)
}

// Release drops one Hold.
func (r *Runtime) Release(a Agent) error {
	defer runtime.KeepAlive(r)
	var cerr *C.sense_error
	return check(C.sense_agent_release(r.ptr, a.id, &cerr), cerr)
}

// Call is one call of a function registered with RegisterCallFunc.
type Call struct {
	Args      []any // the arguments, copied
	Agent     Agent // the calling agent, when FromAgent
	FromAgent bool  // false when called from outside agents
}

// CallFunc is a host function that also learns who called it.
type CallFunc func(c *Call) (any, error)

// RegisterCallFunc registers fn like RegisterFunc, passing the Call
// (arguments and the calling agent).
func (r *Runtime) RegisterCallFunc(name string, arity int, fn CallFunc) error {
	return r.registerFn(name, arity, fn)
}

// notKind reports whether err is the "pause reason has another kind" error.
func notKind(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Status == StatusInvalidArgument
}

// PauseReasonInt returns the agent's pause reason when it is an Int
// (ok=false for other kinds), without copying any other value.
func (r *Runtime) PauseReasonInt(a Agent) (v int64, ok bool, err error) {
	var i C.int64_t
	ok, err = r.pauseReasonAs(func(cerr **C.sense_error) uint32 {
		return C.sense_agent_pause_reason_int(r.ptr, a.id, &i, cerr)
	})
	return int64(i), ok, err
}

// PauseReasonFloat returns the agent's pause reason when it is a Float.
func (r *Runtime) PauseReasonFloat(a Agent) (v float64, ok bool, err error) {
	var f C.double
	ok, err = r.pauseReasonAs(func(cerr **C.sense_error) uint32 {
		return C.sense_agent_pause_reason_float(r.ptr, a.id, &f, cerr)
	})
	return float64(f), ok, err
}

// PauseReasonBool returns the agent's pause reason when it is a Bool.
func (r *Runtime) PauseReasonBool(a Agent) (v bool, ok bool, err error) {
	var b C.bool
	ok, err = r.pauseReasonAs(func(cerr **C.sense_error) uint32 {
		return C.sense_agent_pause_reason_bool(r.ptr, a.id, &b, cerr)
	})
	return bool(b), ok, err
}

// PauseReasonString returns the agent's pause reason when it is a String
// (one copy, into the Go string).
func (r *Runtime) PauseReasonString(a Agent) (v string, ok bool, err error) {
	var s C.sense_str
	ok, err = r.pauseReasonAs(func(cerr **C.sense_error) uint32 {
		return C.sense_agent_pause_reason_string(r.ptr, a.id, &s, cerr)
	})
	if !ok {
		return "", false, err
	}
	return goString(s), true, nil
}

// pauseReasonAs makes one of libsense's typed pause-reason reads (call
// passes the error out-pointer on): ok is false, with no error, when the
// reason is of another kind; the value is read only when ok.
func (r *Runtime) pauseReasonAs(call func(cerr **C.sense_error) uint32) (ok bool, err error) {
	defer runtime.KeepAlive(r)
	var cerr *C.sense_error
	err = check(call(&cerr), cerr)
	if notKind(err) {
		return false, nil
	}
	return err == nil, err
}
