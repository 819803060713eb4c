package sense

import (
	"errors"
	"reflect"
	"testing"
)

func TestMapsFromSense(t *testing.T) {
	rt, _ := runProgram(t, "m = {\"z\": 1, \"a\": [2], 3: {\"in\": true}, false: nil}\nm[\"z\"] = 9\n")
	v := mustGlobal(t, rt, "m")
	m, ok := v.(Map)
	if !ok {
		t.Fatalf("m = %#v", v)
	}
	if want := []any{"z", "a", int64(3), false}; !reflect.DeepEqual(m.Keys, want) {
		t.Fatalf("keys = %#v, want %#v", m.Keys, want)
	}
	if z, _ := m.Get("z"); z != int64(9) {
		t.Fatalf("m[z] = %v", z)
	}
	inner, ok := m.Get(3) // an int key is looked up as int64
	if !ok {
		t.Fatal("key 3 missing")
	}
	if b, _ := inner.(Map).Get("in"); b != true {
		t.Fatalf("inner = %#v", inner)
	}
	if _, ok := m.Get(true); ok {
		t.Fatal("true found")
	}
	if _, ok := m.Strings(); ok {
		t.Fatal("a map with an Int key converted to map[string]any")
	}
}

func TestMapsIntoSense(t *testing.T) {
	rt, out := newRuntime(t)
	ordered := NewMap()
	ordered.Set("name", "ada")
	ordered.Set(int32(7), float32(1.5))
	ordered.Set("name", "grace")
	ordered.Set(true, map[string]any{})
	if err := rt.SetGlobal("person", ordered); err != nil {
		t.Fatal(err)
	}
	// A Go map: entries in sorted key order.
	if err := rt.SetGlobal("scores", map[string]int{"b": 2, "a": 1, "c": 3}); err != nil {
		t.Fatal(err)
	}
	mustRun(t, rt, "print(person, len(person))\nprint(scores)\n")
	if got, want := out.String(), "{name: grace, 7: 1.5, true: {}} 3\n{a: 1, b: 2, c: 3}\n"; got != want {
		t.Fatalf("output %q, want %q", got, want)
	}
	back := mustGlobal(t, rt, "scores")
	if s, ok := back.(Map).Strings(); !ok || s["c"] != int64(3) {
		t.Fatalf("scores back = %#v", back)
	}
	if err := rt.SetGlobal("bad", map[float64]int{1.5: 1}); err == nil {
		t.Fatal("a Float key was accepted")
	} else {
		var e *Error
		if !errors.As(err, &e) || e.Status != StatusInvalidArgument {
			t.Fatalf("float key: %v", err)
		}
	}

	// Through a host function both ways, and as a resume value.
	if err := rt.RegisterFunc("tag", 1, func(args []any) (any, error) {
		m := args[0].(Map)
		m.Set("seen", true)
		return m, nil
	}); err != nil {
		t.Fatal(err)
	}
	mustRun(t, rt, "agent a:\n    answer = pause(tag({\"q\": 1}))\n    print(answer[\"ok\"], len(answer))\n")
	a := startPaused(t, rt, "a")
	reason, _ := rt.PauseReason(a)
	if seen, _ := reason.(Map).Get("seen"); seen != true {
		t.Fatalf("reason = %#v", reason)
	}
	out.Reset()
	if st, err := rt.Resume(a, map[string]any{"ok": "yes", "by": "ops"}); err != nil || st != Completed {
		t.Fatalf("resume: %v %v", st, err)
	}
	if out.String() != "yes 2\n" {
		t.Fatalf("output %q", out.String())
	}
}
