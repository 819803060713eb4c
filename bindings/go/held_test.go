package sense

import (
	"errors"
	"reflect"
	"testing"
)

func TestHeldClosures(t *testing.T) {
	rt, out := runProgram(t, "def make_counter(start):\n    n = start\n    def next(step):\n        n = n + step\n        print(n)\n        return n\n    return next\n")
	maker, err := rt.HoldGlobal("make_counter")
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, rt, "make_counter = nil\n")
	shown, counter, err := maker.CallAndHold(int32(10))
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := shown.(Opaque); !ok || o.TypeName != "Function" {
		t.Fatalf("shown = %#v", shown)
	}
	mustRun(t, rt, "junk = []\nfor i in range(2000):\n    push(junk, [i])\njunk = nil\n")
	for _, want := range []int64{13, 16} {
		if v, err := counter.Call(uint8(3)); err != nil || v != want {
			t.Fatalf("counter(3) = %v, %v; want %d", v, err, want)
		}
	}
	if out.String() != "13\n16\n" {
		t.Fatalf("output %q", out.String())
	}
	if err := counter.Release(); err != nil {
		t.Fatal(err)
	}
	var e *Error
	if _, err := counter.Call(1); !errors.As(err, &e) || e.Status != StatusNotFound {
		t.Fatalf("call after release: %v", err)
	}
	if err := counter.Release(); !errors.As(err, &e) || e.Status != StatusNotFound {
		t.Fatalf("second release: %v", err)
	}
	list, err := rt.HoldValue([]string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := list.Value(); err != nil || len(v.([]any)) != 2 {
		t.Fatalf("held list = %v, %v", v, err)
	}
	if _, err := rt.HoldGlobal("nothing_here"); !errors.As(err, &e) || e.Status != StatusNotFound {
		t.Fatalf("HoldGlobal(missing) = %v", err)
	}
}

func TestListing(t *testing.T) {
	rt, _ := newRuntime(t)
	if names, err := rt.GlobalNames(); err != nil || len(names) != 0 {
		t.Fatalf("before running: %v %v", names, err)
	}
	mustRun(t, rt, "b = 1\ndef a():\n    return 2\nagent w:\n    pause()\n")
	names, err := rt.GlobalNames()
	if err != nil || !reflect.DeepEqual(names, []string{"a", "b", "w"}) {
		t.Fatalf("names = %v, %v", names, err)
	}
	w, _ := rt.Agent("w")
	agents, err := rt.Agents()
	if err != nil || len(agents) != 1 || agents[0] != w {
		t.Fatalf("agents = %v, %v", agents, err)
	}
}
