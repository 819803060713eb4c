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
	var v *C.sense_value
	var cerr *C.sense_error
	if err := check(C.sense_runtime_global_names(r.ptr, &v, &cerr), cerr); err != nil {
		return nil, err
	}
	defer C.sense_value_free(v)
	items := goValue(v).([]any)
	names := make([]string, len(items))
	for i, item := range items {
		names[i], _ = item.(string)
	}
	return names, nil
}

// Agents lists every live agent, oldest first.
func (r *Runtime) Agents() ([]Agent, error) {
	defer runtime.KeepAlive(r)
	var v *C.sense_value
	var cerr *C.sense_error
	if err := check(C.sense_runtime_agents(r.ptr, &v, &cerr), cerr); err != nil {
		return nil, err
	}
	defer C.sense_value_free(v)
	items := goValue(v).([]any)
	agents := make([]Agent, len(items))
	for i, item := range items {
		agents[i], _ = item.(Agent)
	}
	return agents, nil
}
