package sense

/*
#include <sense.h>
*/
import "C"

import "runtime"

// Listing a runtime's globals and live agents.

// GlobalNames lists the names bound in the main program's scope (its
// variables, functions, agents, modules, the globals the host set; not
// the builtins), sorted.
func (r *Runtime) GlobalNames() ([]string, error) {
	defer runtime.KeepAlive(r)
	return listOf[string](func(v **C.sense_value, cerr **C.sense_error) uint32 {
		return C.sense_runtime_global_names(r.ptr, v, cerr)
	})
}

// Agents lists every live agent, oldest first.
func (r *Runtime) Agents() ([]Agent, error) {
	defer runtime.KeepAlive(r)
	return listOf[Agent](func(v **C.sense_value, cerr **C.sense_error) uint32 {
		return C.sense_runtime_agents(r.ptr, v, cerr)
	})
}

// listOf copies the List a call makes into a slice of T.
func listOf[T any](call func(v **C.sense_value, cerr **C.sense_error) uint32) ([]T, error) {
	v, err := copied(call)
	if err != nil {
		return nil, err
	}
	items := v.([]any)
	out := make([]T, len(items))
	for i, item := range items {
		out[i], _ = item.(T)
	}
	return out, nil
}
