package sense

/*
#include <sense.h>
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// The functions here are called by libsense through the C function
// pointers registered in sense.go. A Go panic must not unwind through C
// frames, so each one recovers and reports what it can.

//export senseGoOutput
func senseGoOutput(userData unsafe.Pointer, text C.sense_str) {
	defer func() { _ = recover() }()
	fromUserData(userData).(func(string))(goString(text))
}

//export senseGoInput
func senseGoInput(userData unsafe.Pointer, line *C.sense_str) (ok C.bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	st := fromUserData(userData).(*inputState)
	s, more := st.fn()
	if !more {
		return false
	}
	if st.last != nil {
		C.free(unsafe.Pointer(st.last))
	}
	st.last = C.CString(s)
	line.ptr = st.last
	line.len = C.size_t(len(s))
	return true
}

func failCall(call *C.sense_call, msg string) {
	p, n := cString(msg)
	defer C.free(unsafe.Pointer(p))
	C.sense_call_fail(call, p, n, nil)
}

//export senseGoHostFn
func senseGoHostFn(userData unsafe.Pointer, call *C.sense_call) {
	defer func() {
		if p := recover(); p != nil {
			failCall(call, fmt.Sprint("panic in Go host function: ", p))
		}
	}()
	var n C.size_t
	C.sense_call_arg_count(call, &n, nil)
	args := goItems(n, func(i C.size_t, v **C.sense_value) {
		C.sense_call_arg(call, i, v, nil)
	})
	var result any
	var err error
	switch f := fromUserData(userData).(type) {
	case HostFunc:
		result, err = f(args)
	case CallFunc:
		c := &Call{Args: args}
		var a C.sense_agent
		if C.sense_call_agent(call, &a, nil) == C.SENSE_STATUS_OK {
			c.Agent, c.FromAgent = Agent{id: a}, true
		}
		result, err = f(c)
	}
	if err != nil {
		failCall(call, err.Error())
		return
	}
	suspend, isSuspend := result.(Suspend)
	if isSuspend {
		result = suspend.Reason
	}
	v, err := newValue(result)
	if err != nil {
		failCall(call, err.Error())
		return
	}
	defer C.sense_value_free(v)
	if isSuspend {
		C.sense_call_suspend(call, v, nil)
	} else {
		C.sense_call_return(call, v, nil)
	}
}

//export senseGoComplete
func senseGoComplete(userData unsafe.Pointer, modelID C.sense_str, prompt C.sense_str, completion *C.sense_completion) {
	fail := func(msg string) {
		p, n := cString(msg)
		defer C.free(unsafe.Pointer(p))
		C.sense_completion_fail(completion, p, n, nil)
	}
	defer func() {
		if p := recover(); p != nil {
			fail(fmt.Sprint("panic in Go model provider: ", p))
		}
	}()
	text, err := fromUserData(userData).(CompleteFunc)(goString(modelID), goString(prompt))
	if err != nil {
		fail(err.Error())
		return
	}
	p, n := cString(text)
	defer C.free(unsafe.Pointer(p))
	C.sense_completion_set_text(completion, p, n, nil)
}

//export senseGoFree
func senseGoFree(userData unsafe.Pointer) {
	h := cgo.Handle(*(*C.uintptr_t)(userData))
	if st, ok := h.Value().(*inputState); ok && st.last != nil {
		C.free(unsafe.Pointer(st.last))
	}
	h.Delete()
	C.free(userData)
}
