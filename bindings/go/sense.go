// Package sense embeds the Sense runtime (libsense, the C ABI in
// sense-ffi) in Go programs through cgo: run Sense programs, drive agents
// that pause and resume, answer their questions, register Go functions and
// model providers, and ask a running agent to pause from another goroutine.
//
// Errors come back as *Error (with the Status, the Sense error class,
// message, line, column and rendered diagnostic). Every handle has a
// Close method; finalizers free forgotten ones as a safety net, but Close
// is the way to release a runtime deterministically.
//
// Build: cgo needs include/sense.h (found through the #cgo CFLAGS below,
// relative to this package in the Sense repository, or installed with
// scripts/install.sh) and libsense; point the linker at the directory
// holding libsense.a (or libsense.so), e.g. from the repository root
//
//	cargo build -p sense-ffi
//	cd bindings/go && CGO_LDFLAGS="-L$PWD/../../target/debug" go test ./...
//
// (with both libsense.a and libsense.so in that directory the linker picks
// the shared one, which then must be found at run time: LD_LIBRARY_PATH).
//
// A Runtime is not safe for concurrent use: use it from one goroutine at a
// time (it may move between goroutines and OS threads between calls).
// Callbacks run on the calling goroutine and must not call back into the
// same Runtime. PauseHandle is safe for concurrent use.
package sense

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#cgo LDFLAGS: -lsense -lpthread -ldl -lm
#include <sense.h>
#include <stdint.h>
#include <stdlib.h>

// Go functions exported to C in callbacks.go.
extern void senseGoOutput(void *user_data, sense_str text);
extern bool senseGoInput(void *user_data, sense_str *line);
extern void senseGoHostFn(void *user_data, sense_call *call);
extern void senseGoComplete(void *user_data, sense_str model_id, sense_str prompt,
                            sense_completion *completion);
extern void senseGoFree(void *user_data);
*/
import "C"

import (
	"fmt"
	"math"
	"reflect"
	"runtime"
	"runtime/cgo"
	"unsafe"
)

// Status is the result code of a libsense call (sense_status).
type Status int

// The statuses; see include/sense.h.
const (
	StatusOK              Status = C.SENSE_STATUS_OK
	StatusInvalidArgument Status = C.SENSE_STATUS_INVALID_ARGUMENT
	StatusInvalidUTF8     Status = C.SENSE_STATUS_INVALID_UTF8
	StatusSyntaxError     Status = C.SENSE_STATUS_SYNTAX_ERROR
	StatusRuntimeError    Status = C.SENSE_STATUS_RUNTIME_ERROR
	StatusWrongState      Status = C.SENSE_STATUS_WRONG_STATE
	StatusNotFound        Status = C.SENSE_STATUS_NOT_FOUND
	StatusPanic           Status = C.SENSE_STATUS_PANIC
)

// Error is a failed libsense call.
type Error struct {
	Status   Status
	Class    string // e.g. "SenseSyntaxError", "SenseRuntimeError", "SenseError"
	Message  string // e.g. "[line 3] division by zero"
	Rendered string // the full diagnostic, as the sense CLI prints it
	Line     int    // 1-based; 0 when unknown
	Column   int    // 1-based; 0 when unknown
	// Traceback is the Sense stack traceback (sense_error_traceback):
	// "stack traceback (most recent call last):" then one
	// "  FILE:LINE: in FUNCTION" line per frame, innermost last; empty
	// when no Sense code ran.
	Traceback string
}

func (e *Error) Error() string { return e.Class + ": " + e.Message }

func goString(s C.sense_str) string {
	if s.len == 0 {
		return ""
	}
	return C.GoStringN(s.ptr, C.int(s.len))
}

// check turns a status and its optional error into a Go error, freeing the
// C error.
func check(st uint32, cerr *C.sense_error) error {
	if st == C.SENSE_STATUS_OK {
		return nil
	}
	defer C.sense_error_free(cerr)
	if cerr == nil {
		return &Error{Status: Status(st), Class: "SenseError", Message: fmt.Sprintf("status %d", int(st))}
	}
	return &Error{
		Status:    Status(st),
		Class:     goString(C.sense_error_class(cerr)),
		Message:   goString(C.sense_error_message(cerr)),
		Rendered:  goString(C.sense_error_rendered(cerr)),
		Line:      int(C.sense_error_line(cerr)),
		Column:    int(C.sense_error_column(cerr)),
		Traceback: goString(C.sense_error_traceback(cerr)),
	}
}

// cString copies s into C memory; free it with C.free.
func cString(s string) (*C.char, C.size_t) {
	return C.CString(s), C.size_t(len(s))
}

// Opaque is a Sense value with no Go counterpart (a function, a dict, ...),
// copied out as its type name and printed form. (Agents come out as Agent
// values instead.)
type Opaque struct {
	TypeName string
	Text     string
}

// Suspend, returned as a host function's result, pauses the calling agent
// with Reason; the value the agent is resumed with becomes the call's
// result.
type Suspend struct {
	Reason any
}

// newValue builds an owned C value from a Go value: nil; a bool; any
// signed or unsigned integer type (an unsigned value above math.MaxInt64 is
// an error); float32 or float64; a string; an Agent; a Map (in its Keys'
// order) or a Go map with string, integer or bool keys (in sorted key
// order); or a slice or array of these (recursively: []any, []string,
// map[string]any, ...). Named types whose
// underlying type is one of these convert too. It is the one conversion
// every call that passes values into Sense uses.
func newValue(v any) (*C.sense_value, error) {
	switch x := v.(type) {
	case nil:
		return C.sense_value_new_nil(), nil
	case Agent:
		return C.sense_value_new_agent(x.id), nil
	case Map:
		return newMapValue(x.Keys, func(k any) any { return x.Values[k] })
	case *Map:
		if x == nil {
			return C.sense_value_new_nil(), nil
		}
		return newMapValue(x.Keys, func(k any) any { return x.Values[k] })
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		return C.sense_value_new_bool(C.bool(rv.Bool())), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return C.sense_value_new_int(C.int64_t(rv.Int())), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return nil, fmt.Errorf("sense: %d (%T) does not fit a Sense Int (64-bit signed)", u, v)
		}
		return C.sense_value_new_int(C.int64_t(u)), nil
	case reflect.Float32, reflect.Float64:
		return C.sense_value_new_float(C.double(rv.Float())), nil
	case reflect.String:
		p, n := cString(rv.String())
		defer C.free(unsafe.Pointer(p))
		var out *C.sense_value
		var cerr *C.sense_error
		if err := check(C.sense_value_new_string(p, n, &out, &cerr), cerr); err != nil {
			return nil, err
		}
		return out, nil
	case reflect.Slice, reflect.Array:
		list := C.sense_value_new_list()
		for i := 0; i < rv.Len(); i++ {
			cv, err := newValue(rv.Index(i).Interface())
			if err != nil {
				C.sense_value_free(list)
				return nil, err
			}
			st := C.sense_value_list_push(list, cv, nil)
			C.sense_value_free(cv)
			if err := check(st, nil); err != nil {
				C.sense_value_free(list)
				return nil, err
			}
		}
		return list, nil
	case reflect.Map:
		return newGoMapValue(rv)
	default:
		return nil, fmt.Errorf("sense: cannot convert %T to a Sense value", v)
	}
}

// goValue copies a C value (borrowed) into Go.
func goValue(v *C.sense_value) any {
	var kind uint32
	if C.sense_value_get_kind(v, &kind, nil) != C.SENSE_STATUS_OK {
		return nil
	}
	switch kind {
	case C.SENSE_VALUE_KIND_BOOL:
		var b C.bool
		C.sense_value_as_bool(v, &b, nil)
		return bool(b)
	case C.SENSE_VALUE_KIND_INT:
		var i C.int64_t
		C.sense_value_as_int(v, &i, nil)
		return int64(i)
	case C.SENSE_VALUE_KIND_FLOAT:
		var f C.double
		C.sense_value_as_float(v, &f, nil)
		return float64(f)
	case C.SENSE_VALUE_KIND_STRING:
		var s C.sense_str
		C.sense_value_as_string(v, &s, nil)
		return goString(s)
	case C.SENSE_VALUE_KIND_LIST:
		var n C.size_t
		C.sense_value_list_len(v, &n, nil)
		return goItems(n, func(i C.size_t, item **C.sense_value) {
			C.sense_value_list_get(v, i, item, nil)
		})
	case C.SENSE_VALUE_KIND_MAP:
		return goMap(v)
	case C.SENSE_VALUE_KIND_OPAQUE:
		var t, s C.sense_str
		C.sense_value_type_name(v, &t, nil)
		C.sense_value_as_string(v, &s, nil)
		return Opaque{TypeName: goString(t), Text: goString(s)}
	case C.SENSE_VALUE_KIND_AGENT:
		var a C.sense_agent
		C.sense_value_as_agent(v, &a, nil)
		return Agent{id: a}
	default:
		return nil
	}
}

// goItems copies n borrowed C values into Go; at(i, &item) reads item i.
func goItems(n C.size_t, at func(i C.size_t, item **C.sense_value)) []any {
	items := make([]any, int(n))
	for i := range items {
		var item *C.sense_value
		at(C.size_t(i), &item)
		items[i] = goValue(item)
	}
	return items
}

// copied makes a call that stores a new C value through its first
// argument and returns that value copied into Go (the C value is freed).
func copied(call func(v **C.sense_value, cerr **C.sense_error) uint32) (any, error) {
	var v *C.sense_value
	var cerr *C.sense_error
	if err := check(call(&v, &cerr), cerr); err != nil {
		return nil, err
	}
	defer C.sense_value_free(v)
	return goValue(v), nil
}

// userData boxes a Go value as C user data: C memory holding a cgo.Handle,
// released by senseGoFree when the runtime lets go of it.
func userData(v any) unsafe.Pointer {
	p := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	*(*C.uintptr_t)(p) = C.uintptr_t(cgo.NewHandle(v))
	return p
}

func fromUserData(p unsafe.Pointer) any {
	return cgo.Handle(*(*C.uintptr_t)(p)).Value()
}

// Config holds limits for NewWithConfig. Zero fields keep the defaults.
type Config struct {
	MaxDepth     uint   // maximum active Sense frames; 0 keeps the default (10000)
	MaxSteps     uint64 // safe points per run; 0 = unlimited
	MaxStringLen uint   // largest string an operation may build, in bytes
	MaxArrayLen  uint   // largest array an operation may build, in elements
	MaxHeap      uint   // heap ceiling in bytes (default 1 GiB)
	DryRun       bool   // actions check everything but run no bodies
}

// Runtime is a Sense runtime: one top-level scope shared by every program
// run on it, its agents, functions, providers and I/O callbacks.
type Runtime struct {
	ptr *C.sense_runtime
}

// New creates a runtime with default limits, printing to stdout.
func New() (*Runtime, error) {
	var ptr *C.sense_runtime
	var cerr *C.sense_error
	if err := check(C.sense_runtime_new(&ptr, &cerr), cerr); err != nil {
		return nil, err
	}
	return wrap(ptr), nil
}

// NewWithConfig creates a runtime with the given limits.
func NewWithConfig(cfg Config) (*Runtime, error) {
	var c *C.sense_config
	var cerr *C.sense_error
	if err := check(C.sense_config_new(&c, &cerr), cerr); err != nil {
		return nil, err
	}
	defer C.sense_config_free(c)
	if cfg.MaxDepth != 0 {
		if err := check(C.sense_config_set_max_depth(c, C.size_t(cfg.MaxDepth), &cerr), cerr); err != nil {
			return nil, err
		}
	}
	if cfg.MaxStringLen != 0 {
		if err := check(C.sense_config_set_max_string_len(c, C.size_t(cfg.MaxStringLen), &cerr), cerr); err != nil {
			return nil, err
		}
	}
	if cfg.MaxArrayLen != 0 {
		if err := check(C.sense_config_set_max_array_len(c, C.size_t(cfg.MaxArrayLen), &cerr), cerr); err != nil {
			return nil, err
		}
	}
	if cfg.MaxHeap != 0 {
		if err := check(C.sense_config_set_max_heap(c, C.size_t(cfg.MaxHeap), &cerr), cerr); err != nil {
			return nil, err
		}
	}
	C.sense_config_set_max_steps(c, C.uint64_t(cfg.MaxSteps), nil)
	C.sense_config_set_dry_run(c, C.bool(cfg.DryRun), nil)
	var ptr *C.sense_runtime
	if err := check(C.sense_runtime_new_with_config(c, &ptr, &cerr), cerr); err != nil {
		return nil, err
	}
	return wrap(ptr), nil
}

func wrap(ptr *C.sense_runtime) *Runtime {
	r := &Runtime{ptr: ptr}
	runtime.SetFinalizer(r, (*Runtime).Close)
	return r
}

// Close frees the runtime, its agents (paused ones included) and its
// callbacks. Closing twice is harmless.
func (r *Runtime) Close() error {
	if r.ptr != nil {
		C.sense_runtime_free(r.ptr)
		r.ptr = nil
		runtime.SetFinalizer(r, nil)
	}
	return nil
}

// RunSource runs source as a main program named name.
func (r *Runtime) RunSource(name, source string) error {
	defer runtime.KeepAlive(r)
	n, nl := cString(name)
	defer C.free(unsafe.Pointer(n))
	s, sl := cString(source)
	defer C.free(unsafe.Pointer(s))
	var cerr *C.sense_error
	return check(C.sense_runtime_run_source(r.ptr, n, nl, s, sl, &cerr), cerr)
}

// RunFile reads and runs a file as a main program.
func (r *Runtime) RunFile(path string) error {
	defer runtime.KeepAlive(r)
	p, pl := cString(path)
	defer C.free(unsafe.Pointer(p))
	var cerr *C.sense_error
	return check(C.sense_runtime_run_file(r.ptr, p, pl, &cerr), cerr)
}

// Global copies the value of a top-level variable.
func (r *Runtime) Global(name string) (any, error) {
	defer runtime.KeepAlive(r)
	p, pl := cString(name)
	defer C.free(unsafe.Pointer(p))
	return copied(func(v **C.sense_value, cerr **C.sense_error) uint32 {
		return C.sense_runtime_global(r.ptr, p, pl, v, cerr)
	})
}

// SetOutput sends program output to fn instead of stdout.
func (r *Runtime) SetOutput(fn func(text string)) error {
	defer runtime.KeepAlive(r)
	var cerr *C.sense_error
	return check(C.sense_runtime_set_output(r.ptr, C.sense_output_fn(C.senseGoOutput),
		userData(fn), C.sense_free_fn(C.senseGoFree), &cerr), cerr)
}

// inputState keeps the last line in C memory until the next call.
type inputState struct {
	fn   func() (string, bool)
	last *C.char
}

// SetInput reads ask_human answers outside agents from fn (false: end of
// input).
func (r *Runtime) SetInput(fn func() (line string, ok bool)) error {
	defer runtime.KeepAlive(r)
	var cerr *C.sense_error
	return check(C.sense_runtime_set_input(r.ptr, C.sense_input_fn(C.senseGoInput),
		userData(&inputState{fn: fn}), C.sense_free_fn(C.senseGoFree), &cerr), cerr)
}

// HostFunc is a Go function callable from Sense. Return a value (any
// that SetGlobal accepts), a Suspend to pause the calling agent, or an
// error to raise a SenseRuntimeError (its text: bytes that are not UTF-8
// become U+FFFD).
type HostFunc func(args []any) (any, error)

// RegisterFunc makes fn callable from Sense as name(...) with arity
// arguments (-1: any number).
func (r *Runtime) RegisterFunc(name string, arity int, fn HostFunc) error {
	return r.registerFn(name, arity, fn)
}

// registerFn registers fn (a HostFunc or a CallFunc; senseGoHostFn tells
// them apart) as name(...).
func (r *Runtime) registerFn(name string, arity int, fn any) error {
	defer runtime.KeepAlive(r)
	p, pl := cString(name)
	defer C.free(unsafe.Pointer(p))
	var cerr *C.sense_error
	return check(C.sense_runtime_register_fn(r.ptr, p, pl, C.int32_t(arity),
		C.sense_host_fn(C.senseGoHostFn), userData(fn), C.sense_free_fn(C.senseGoFree), &cerr), cerr)
}

// CompleteFunc answers a prompt for a model.
type CompleteFunc func(modelID, prompt string) (string, error)

// RegisterProvider registers a model provider for inference(name, ...).
// capability may be empty (no policy gate).
func (r *Runtime) RegisterProvider(name, capability, defaultModel string, fn CompleteFunc) error {
	defer runtime.KeepAlive(r)
	n, nl := cString(name)
	defer C.free(unsafe.Pointer(n))
	c, cl := cString(capability)
	defer C.free(unsafe.Pointer(c))
	d, dl := cString(defaultModel)
	defer C.free(unsafe.Pointer(d))
	var cerr *C.sense_error
	return check(C.sense_runtime_register_provider(r.ptr, n, nl, c, cl, d, dl,
		C.sense_complete_fn(C.senseGoComplete), userData(fn), C.sense_free_fn(C.senseGoFree), &cerr), cerr)
}

// Agent identifies an agent of one Runtime (plain data, comparable with
// ==). Values read from Sense (call results, pause reasons, host function
// arguments, list items) hold agents as Agent values, which drive them
// like ids from Runtime.Agent; passed back into the same Runtime (as an
// argument, a global, a resume value) Sense sees the agent itself, while
// another Runtime refuses it with StatusRuntimeError.
type Agent struct {
	id C.sense_agent
}

// AgentStatus is an agent's status.
type AgentStatus int

// The statuses.
const (
	Created   AgentStatus = C.SENSE_AGENT_STATUS_CREATED
	Running   AgentStatus = C.SENSE_AGENT_STATUS_RUNNING
	Paused    AgentStatus = C.SENSE_AGENT_STATUS_PAUSED
	Completed AgentStatus = C.SENSE_AGENT_STATUS_COMPLETED
	Failed    AgentStatus = C.SENSE_AGENT_STATUS_FAILED
)

func (s AgentStatus) String() string {
	return [...]string{"created", "running", "paused", "completed", "failed"}[s]
}

// PauseKind says why a paused agent is paused.
type PauseKind int

// The pause kinds.
const (
	NotPaused      PauseKind = C.SENSE_PAUSE_KIND_NONE
	SelfPause      PauseKind = C.SENSE_PAUSE_KIND_SELF_PAUSE
	AskHuman       PauseKind = C.SENSE_PAUSE_KIND_ASK_HUMAN
	WaitingMessage PauseKind = C.SENSE_PAUSE_KIND_WAITING_MESSAGE
	HostRequest    PauseKind = C.SENSE_PAUSE_KIND_HOST_REQUEST
	Budget         PauseKind = C.SENSE_PAUSE_KIND_BUDGET
	HostFunction   PauseKind = C.SENSE_PAUSE_KIND_HOST_FUNCTION
	Timer          PauseKind = C.SENSE_PAUSE_KIND_TIMER
)

// Agent looks up the agent bound to name.
func (r *Runtime) Agent(name string) (Agent, error) {
	defer runtime.KeepAlive(r)
	p, pl := cString(name)
	defer C.free(unsafe.Pointer(p))
	var a Agent
	var cerr *C.sense_error
	err := check(C.sense_agent_lookup(r.ptr, p, pl, &a.id, &cerr), cerr)
	return a, err
}

// Start starts a created agent and runs it until it pauses, completes or
// fails.
func (r *Runtime) Start(a Agent) (AgentStatus, error) {
	defer runtime.KeepAlive(r)
	var s uint32
	var cerr *C.sense_error
	err := check(C.sense_agent_start(r.ptr, a.id, &s, &cerr), cerr)
	return AgentStatus(s), err
}

// Resume continues a paused agent; value becomes the result of the call it
// is paused in.
func (r *Runtime) Resume(a Agent, value any) (AgentStatus, error) {
	defer runtime.KeepAlive(r)
	v, err := newValue(value)
	if err != nil {
		return 0, err
	}
	defer C.sense_value_free(v)
	return r.resumeWith(func(s *uint32, cerr **C.sense_error) uint32 {
		return C.sense_agent_resume(r.ptr, a.id, v, s, cerr)
	})
}

// ResumeInt continues a paused agent with an Int passed directly: nothing
// is allocated for it (read the next pause value with PauseReasonInt).
func (r *Runtime) ResumeInt(a Agent, value int64) (AgentStatus, error) {
	return r.resumeWith(func(s *uint32, cerr **C.sense_error) uint32 {
		return C.sense_agent_resume_int(r.ptr, a.id, C.int64_t(value), s, cerr)
	})
}

// ResumeString continues a paused agent with a String passed directly
// (libsense copies it; no value is built).
func (r *Runtime) ResumeString(a Agent, value string) (AgentStatus, error) {
	p, n := cString(value)
	defer C.free(unsafe.Pointer(p))
	return r.resumeWith(func(s *uint32, cerr **C.sense_error) uint32 {
		return C.sense_agent_resume_string(r.ptr, a.id, p, n, s, cerr)
	})
}

// ResumeFloat continues a paused agent with a Float passed directly.
func (r *Runtime) ResumeFloat(a Agent, value float64) (AgentStatus, error) {
	return r.resumeWith(func(s *uint32, cerr **C.sense_error) uint32 {
		return C.sense_agent_resume_float(r.ptr, a.id, C.double(value), s, cerr)
	})
}

// ResumeBool continues a paused agent with a Bool passed directly.
func (r *Runtime) ResumeBool(a Agent, value bool) (AgentStatus, error) {
	return r.resumeWith(func(s *uint32, cerr **C.sense_error) uint32 {
		return C.sense_agent_resume_bool(r.ptr, a.id, C.bool(value), s, cerr)
	})
}

// resumeWith makes one of libsense's resume calls (call passes the status
// and error out-pointers on) and returns the agent's new status.
func (r *Runtime) resumeWith(call func(s *uint32, cerr **C.sense_error) uint32) (AgentStatus, error) {
	defer runtime.KeepAlive(r)
	var s uint32
	var cerr *C.sense_error
	err := check(call(&s, &cerr), cerr)
	return AgentStatus(s), err
}

// RegisterDefaultProviders registers the network model providers
// (inference("openai"), inference("anthropic"); keys are read from the
// environment when a call is made) and connect_mcp, as the sense command
// has them. Call it before restoring a snapshot whose models use them.
func (r *Runtime) RegisterDefaultProviders() error {
	defer runtime.KeepAlive(r)
	var cerr *C.sense_error
	return check(C.sense_runtime_register_default_providers(r.ptr, &cerr), cerr)
}

// Status returns the agent's status.
func (r *Runtime) Status(a Agent) (AgentStatus, error) {
	defer runtime.KeepAlive(r)
	var s uint32
	var cerr *C.sense_error
	err := check(C.sense_agent_get_status(r.ptr, a.id, &s, &cerr), cerr)
	return AgentStatus(s), err
}

// PauseKind says why the agent is paused (NotPaused if it is not).
func (r *Runtime) PauseKind(a Agent) (PauseKind, error) {
	defer runtime.KeepAlive(r)
	var k uint32
	var cerr *C.sense_error
	err := check(C.sense_agent_pause_kind(r.ptr, a.id, &k, &cerr), cerr)
	return PauseKind(k), err
}

// PauseReason returns the agent's last pause reason.
func (r *Runtime) PauseReason(a Agent) (any, error) {
	defer runtime.KeepAlive(r)
	return copied(func(v **C.sense_value, cerr **C.sense_error) uint32 {
		return C.sense_agent_pause_reason(r.ptr, a.id, v, cerr)
	})
}

// Send puts a message in the agent's mailbox.
func (r *Runtime) Send(a Agent, message any) error {
	defer runtime.KeepAlive(r)
	return withValue(message, func(v *C.sense_value, cerr **C.sense_error) uint32 {
		return C.sense_agent_send(r.ptr, a.id, v, cerr)
	})
}

// withValue makes value a C value for one call that reports only a status
// (the C value is freed afterwards).
func withValue(value any, call func(v *C.sense_value, cerr **C.sense_error) uint32) error {
	v, err := newValue(value)
	if err != nil {
		return err
	}
	defer C.sense_value_free(v)
	var cerr *C.sense_error
	return check(call(v, &cerr), cerr)
}

// Snapshot saves the whole runtime — every agent (paused ones exactly
// where they stopped), globals, mailboxes, the subject — as bytes to keep
// anywhere and restore later, in this process or another. Callbacks, host
// functions, providers and limits are not in the bytes.
func (r *Runtime) Snapshot() ([]byte, error) {
	defer runtime.KeepAlive(r)
	var b *C.sense_bytes
	var cerr *C.sense_error
	if err := check(C.sense_runtime_snapshot(r.ptr, &b, &cerr), cerr); err != nil {
		return nil, err
	}
	defer C.sense_bytes_free(b)
	n := int(C.sense_bytes_len(b))
	out := make([]byte, n)
	copy(out, unsafe.Slice((*byte)(unsafe.Pointer(C.sense_bytes_data(b))), n))
	return out, nil
}

// Restore loads a snapshot into this runtime, which must be new (nothing
// run or restored yet). Set it up first as the snapshotted one was:
// SetOutput, SetInput, RegisterFunc and RegisterProvider for everything the
// snapshot's code uses; a missing host function is a *Error naming it
// (StatusRuntimeError), after which the runtime is still new. Damaged or
// truncated data is a StatusRuntimeError; a runtime that already ran code
// gives StatusWrongState.
func (r *Runtime) Restore(data []byte) error {
	defer runtime.KeepAlive(r)
	var p *C.uint8_t
	if len(data) > 0 {
		// The bytes hold no Go pointers and libsense copies them during the
		// call, so passing Go memory is allowed.
		p = (*C.uint8_t)(unsafe.Pointer(&data[0]))
	}
	var cerr *C.sense_error
	return check(C.sense_runtime_restore(r.ptr, p, C.size_t(len(data)), &cerr), cerr)
}

// SetSubject records a as the agent the host is driving; it is saved in
// snapshots, so whoever restores one finds the agent with Subject.
func (r *Runtime) SetSubject(a Agent) error {
	defer runtime.KeepAlive(r)
	var cerr *C.sense_error
	return check(C.sense_runtime_set_subject(r.ptr, &a.id, &cerr), cerr)
}

// ClearSubject forgets the subject agent.
func (r *Runtime) ClearSubject() error {
	defer runtime.KeepAlive(r)
	var cerr *C.sense_error
	return check(C.sense_runtime_set_subject(r.ptr, nil, &cerr), cerr)
}

// Subject returns the subject agent; ok is false when there is none.
func (r *Runtime) Subject() (a Agent, ok bool, err error) {
	defer runtime.KeepAlive(r)
	var cerr *C.sense_error
	st := C.sense_runtime_get_subject(r.ptr, &a.id, &cerr)
	if st == C.SENSE_STATUS_NOT_FOUND {
		C.sense_error_free(cerr)
		return Agent{}, false, nil
	}
	if err := check(st, cerr); err != nil {
		return Agent{}, false, err
	}
	return a, true, nil
}

// PauseHandle asks one agent to pause from any goroutine.
type PauseHandle struct {
	ptr *C.sense_pause_handle
}

// PauseHandle makes a handle that can ask a from any goroutine to pause at
// its next safe point.
func (r *Runtime) PauseHandle(a Agent) (*PauseHandle, error) {
	defer runtime.KeepAlive(r)
	var h *C.sense_pause_handle
	var cerr *C.sense_error
	if err := check(C.sense_pause_handle_new(r.ptr, a.id, &h, &cerr), cerr); err != nil {
		return nil, err
	}
	ph := &PauseHandle{ptr: h}
	runtime.SetFinalizer(ph, (*PauseHandle).Close)
	return ph, nil
}

// Request asks for a pause; false if one was already pending or the
// agent has completed or failed.
func (h *PauseHandle) Request() (bool, error) {
	defer runtime.KeepAlive(h)
	var newly C.bool
	var cerr *C.sense_error
	err := check(C.sense_pause_handle_request(h.ptr, &newly, &cerr), cerr)
	return bool(newly), err
}

// IsRequested reports whether a pause request is pending (made and not
// yet taken by the agent at a safe point).
func (h *PauseHandle) IsRequested() (bool, error) {
	defer runtime.KeepAlive(h)
	var requested C.bool
	var cerr *C.sense_error
	err := check(C.sense_pause_handle_is_requested(h.ptr, &requested, &cerr), cerr)
	return bool(requested), err
}

// Close frees the handle; closing twice is harmless. Do not close it while
// another goroutine is calling Request.
func (h *PauseHandle) Close() error {
	if h.ptr != nil {
		C.sense_pause_handle_free(h.ptr)
		h.ptr = nil
		runtime.SetFinalizer(h, nil)
	}
	return nil
}

// Version is the version of the linked libsense.
func Version() string {
	return goString(C.sense_version())
}
