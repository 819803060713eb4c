package sense

import (
	"errors"
	"strings"
	"testing"
)

// Agents inside values: taken out of a pause reason, a call result and a
// host function's argument, driven, and passed back in as themselves.
func TestAgentsInsideValues(t *testing.T) {
	rt, out := newRuntime(t)
	err := rt.RegisterFunc("relay", 1, func(args []any) (any, error) {
		w, ok := args[0].([]any)[0].(Agent)
		if !ok {
			return nil, errors.New("want [agent]")
		}
		return w, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, rt, "agent w:\n    n = pause(\"w waits\")\n"+
		"agent boss:\n    got = pause([1, w])\n    print(got.name)\n"+
		"def pick():\n    return [w]\n"+
		"def same(a):\n    return a == w\n"+
		"print(relay([w]) == w)\n")
	byName, _ := rt.Agent("w")
	picked, err := rt.Call("pick")
	if err != nil || picked.([]any)[0] != byName {
		t.Fatalf("pick() = %#v, %v; want [%#v]", picked, err, byName)
	}
	boss, _ := rt.Agent("boss")
	if _, err := rt.Start(boss); err != nil {
		t.Fatal(err)
	}
	reason, _ := rt.PauseReason(boss)
	w, ok := reason.([]any)[1].(Agent)
	if !ok || w != byName {
		t.Fatalf("reason = %#v", reason)
	}
	if st, err := rt.Start(w); err != nil || st != Paused {
		t.Fatalf("start(w) = %v, %v", st, err)
	}
	if v, err := rt.Call("same", w); err != nil || v != true {
		t.Fatalf("same(w) = %v, %v", v, err)
	}
	if st, err := rt.Resume(boss, w); err != nil || st != Completed {
		t.Fatalf("resume(boss, w) = %v, %v", st, err)
	}
	if out.String() != "true\nw\n" {
		t.Fatalf("output %q", out.String())
	}

	// Another runtime with the same program refuses this runtime's agent.
	other, _ := runProgram(t, "agent w:\n    n = 1\ndef same(a):\n    return a == w\n")
	_, err = other.Call("same", w)
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusRuntimeError || !strings.Contains(e.Message, "another runtime") {
		t.Fatalf("other.same(w) = %#v", err)
	}
}
