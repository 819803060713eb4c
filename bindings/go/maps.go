package sense

/*
#include <sense.h>
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"reflect"
	"sort"
)

// Map is a Sense Map in Go: its keys in insertion order (each a string,
// int64 or bool) and its values by key. Values read from Sense hold maps
// as Map; passed into Sense (SetGlobal, Call, Resume, a host function's
// result, ...) a Map keeps the order of Keys. Any Go map whose keys are
// strings, integers or bools converts too (map[string]any, ...), its
// entries in sorted key order since Go maps have none.
type Map struct {
	Keys   []any
	Values map[any]any
}

// NewMap makes an empty Map to fill with Set.
func NewMap() *Map {
	return &Map{Values: map[any]any{}}
}

// Set stores value under key: a new key goes last, an existing one keeps
// its place (as m[k] = v does in Sense). Integer keys are stored as int64.
func (m *Map) Set(key, value any) {
	key = mapKey(key)
	if m.Values == nil {
		m.Values = map[any]any{}
	}
	if _, ok := m.Values[key]; !ok {
		m.Keys = append(m.Keys, key)
	}
	m.Values[key] = value
}

// Get returns the value under key (an integer key of any type is looked up
// as int64) and whether the map has it.
func (m Map) Get(key any) (any, bool) {
	v, ok := m.Values[mapKey(key)]
	return v, ok
}

// Len is the number of entries.
func (m Map) Len() int { return len(m.Keys) }

// Strings returns the entries as a map[string]any; ok is false when some
// key is not a string.
func (m Map) Strings() (out map[string]any, ok bool) {
	out = make(map[string]any, len(m.Keys))
	for _, k := range m.Keys {
		s, isString := k.(string)
		if !isString {
			return nil, false
		}
		out[s] = m.Values[k]
	}
	return out, true
}

// mapKey turns an integer of any type into int64, the form Map keys read
// from Sense have; other keys are returned as they are.
func mapKey(key any) any {
	rv := reflect.ValueOf(key)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := rv.Uint(); u <= 1<<63-1 {
			return int64(u)
		}
	}
	return key
}

// newMapValue builds an owned C map from keys (in order) and a lookup.
func newMapValue(keys []any, value func(key any) any) (*C.sense_value, error) {
	m := C.sense_value_new_map()
	for _, k := range keys {
		ck, err := newValue(k)
		if err != nil {
			C.sense_value_free(m)
			return nil, err
		}
		cv, err := newValue(value(k))
		if err != nil {
			C.sense_value_free(ck)
			C.sense_value_free(m)
			return nil, err
		}
		var cerr *C.sense_error
		st := C.sense_value_map_set(m, ck, cv, &cerr)
		C.sense_value_free(ck)
		C.sense_value_free(cv)
		if err := check(st, cerr); err != nil {
			C.sense_value_free(m)
			return nil, err
		}
	}
	return m, nil
}

// newGoMapValue converts a Go map (reflect kind Map), its keys sorted:
// bools, then numbers, then strings, each in ascending order.
func newGoMapValue(rv reflect.Value) (*C.sense_value, error) {
	keys := make([]any, 0, rv.Len())
	byKey := make(map[any]any, rv.Len())
	iter := rv.MapRange()
	for iter.Next() {
		k := mapKey(iter.Key().Interface())
		keys = append(keys, k)
		byKey[k] = iter.Value().Interface()
	}
	sort.SliceStable(keys, func(i, j int) bool { return keyLess(keys[i], keys[j]) })
	return newMapValue(keys, func(k any) any { return byKey[k] })
}

// keyLess orders map keys for conversion: bools (false first), int64s,
// strings; other kinds last (the conversion refuses them).
func keyLess(a, b any) bool {
	rank := func(k any) int {
		switch k.(type) {
		case bool:
			return 0
		case int64:
			return 1
		case string:
			return 2
		default:
			return 3
		}
	}
	ra, rb := rank(a), rank(b)
	if ra != rb {
		return ra < rb
	}
	switch x := a.(type) {
	case bool:
		return !x && b.(bool)
	case int64:
		return x < b.(int64)
	case string:
		return x < b.(string)
	}
	return false
}

// goMap copies a C map (borrowed) into a Map.
func goMap(v *C.sense_value) Map {
	var n C.size_t
	C.sense_value_map_len(v, &n, nil)
	m := Map{Keys: make([]any, 0, int(n)), Values: make(map[any]any, int(n))}
	for i := C.size_t(0); i < n; i++ {
		var k, x *C.sense_value
		C.sense_value_map_key(v, i, &k, nil)
		C.sense_value_map_value(v, i, &x, nil)
		key := goValue(k)
		m.Keys = append(m.Keys, key)
		m.Values[key] = goValue(x)
	}
	return m
}
