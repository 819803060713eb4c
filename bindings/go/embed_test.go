package sense

import (
	"errors"
	"runtime"
	"testing"
)

func TestGlobalsAndCall(t *testing.T) {
	rt, _ := newRuntime(t)
	if err := rt.SetGlobal("items", []any{int64(1), "two", 2.5, nil, true}); err != nil {
		t.Fatal(err)
	}
	mustRun(t, rt, "def count(xs):\n    return len(xs)\ndef fail():\n    return 1 / 0\n")
	if v, err := rt.Call("count", []any{1, 2, 3}); err != nil || v != int64(3) {
		t.Fatalf("count = %v, %v", v, err)
	}
	if v, err := rt.Global("items"); err != nil || len(v.([]any)) != 5 {
		t.Fatalf("items = %v, %v", v, err)
	}
	_, err := rt.Call("fail")
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusRuntimeError || e.Line != 4 {
		t.Fatalf("fail() = %#v", err)
	}
	if err := rt.SetGlobal("not a name", 1); err == nil {
		t.Fatal("bad name accepted")
	}
}

func TestMembersPathsAndHolds(t *testing.T) {
	rt, _ := runProgram(t, "agent acc:\n    total = 0\n    while true:\n        total = total + pause(\"more?\")\nteam = [[acc]]\n")
	acc, err := rt.AgentAt("team", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, rt, "agent boss:\n    agent helper:\n        n = 0\n    crew = [helper]\n    pause()\n")
	boss, _ := rt.Agent("boss")
	rt.Start(boss)
	helper, err := rt.AgentInMember(boss, "crew", 0)
	if st, err2 := rt.Start(helper); err != nil || err2 != nil || st != Completed {
		t.Fatalf("helper: %v %v %v", st, err, err2)
	}
	if _, err := rt.AgentAt("team", 3); err == nil {
		t.Fatal("missing element found")
	}
	rt.Start(acc)
	rt.Resume(acc, 7)
	if v, err := rt.Member(acc, "total"); err != nil || v != int64(7) {
		t.Fatalf("total = %v, %v", v, err)
	}
	if _, ok, _ := rt.PauseReasonInt(acc); ok {
		t.Fatal("a String reason read as an Int")
	}
	if s, ok, err := rt.PauseReasonString(acc); !ok || err != nil || s != "more?" {
		t.Fatalf("reason = %q %v %v", s, ok, err)
	}
	if err := rt.Hold(acc); err != nil {
		t.Fatal(err)
	}
	mustRun(t, rt, "team = nil\nacc = nil\nfor i in range(300000):\n    s = str(i)\n")
	if st, err := rt.Status(acc); err != nil || st != Paused {
		t.Fatalf("held agent: %v %v", st, err)
	}
	if err := rt.Release(acc); err != nil {
		t.Fatal(err)
	}
	mustRun(t, rt, "for i in range(300000):\n    s = str(i)\n")
	if _, err := rt.Status(acc); err == nil {
		t.Fatal("released agent still there")
	}
}

func TestCallerAndLimits(t *testing.T) {
	rt, err := NewWithConfig(Config{MaxHeap: 8 << 20, MaxArrayLen: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	rt.SetOutput(func(string) {})
	var callers []bool
	rt.RegisterCallFunc("who", 0, func(c *Call) (any, error) {
		callers = append(callers, c.FromAgent)
		return nil, nil
	})
	mustRun(t, rt, "agent a:\n    who()\nwho()\n")
	a, _ := rt.Agent("a")
	rt.Start(a)
	if len(callers) != 2 || callers[0] || !callers[1] {
		t.Fatalf("callers = %v", callers)
	}
	err = rt.RunSource("grow.sns", "rows = []\nwhile true:\n    push(rows, range(1000))\n")
	var e *Error
	if !errors.As(err, &e) || e.Class != "SenseRuntimeError" {
		t.Fatalf("unbounded growth: %v", err)
	}
	runtime.KeepAlive(rt)
}

func mustRun(t *testing.T, rt *Runtime, src string) {
	t.Helper()
	if err := rt.RunSource("t.sns", src); err != nil {
		t.Fatal(err)
	}
}

func TestResumeInt(t *testing.T) {
	rt, _ := runProgram(t, "agent w:\n    x = 0\n    while true:\n        x = pause(x + 1)\n")
	w := startPaused(t, rt, "w")
	for i := int64(1); i <= 100; i++ {
		if st, err := rt.ResumeInt(w, i); err != nil || st != Paused {
			t.Fatalf("resume %d: %v %v", i, st, err)
		}
		if v, ok, err := rt.PauseReasonInt(w); !ok || err != nil || v != i+1 {
			t.Fatalf("reason after %d = %v %v %v", i, v, ok, err)
		}
	}
}
