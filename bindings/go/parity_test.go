package sense

// The Go binding catches up with the C API (issue 28): direct String,
// Float and Bool resumes, the default providers, IsRequested, every
// sized integer, float32 and typed slices as values, and host function
// errors whose text is not UTF-8.

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestDirectResumes(t *testing.T) {
	rt, out := runProgram(t, "agent w:\n    x = 0\n    while true:\n        x = pause(x)\n        print(type_of(x), x)\n")
	w := startPaused(t, rt, "w")
	if st, err := rt.ResumeString(w, "yes"); err != nil || st != Paused {
		t.Fatalf("ResumeString: %v %v", st, err)
	}
	if s, ok, _ := rt.PauseReasonString(w); !ok || s != "yes" {
		t.Fatalf("reason = %q", s)
	}
	if st, err := rt.ResumeFloat(w, 2.5); err != nil || st != Paused {
		t.Fatalf("ResumeFloat: %v %v", st, err)
	}
	if st, err := rt.ResumeBool(w, true); err != nil || st != Paused {
		t.Fatalf("ResumeBool: %v %v", st, err)
	}
	if b, ok, _ := rt.PauseReasonBool(w); !ok || !b {
		t.Fatalf("bool reason = %v %v", b, ok)
	}
	if got := out.String(); got != "String yes\nFloat 2.5\nBool true\n" {
		t.Fatalf("output %q", got)
	}
	_, err := rt.ResumeString(w, "caf\xe9")
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusInvalidUTF8 {
		t.Fatalf("non-UTF-8 resume: %#v", err)
	}
}

func TestDefaultProvidersAndIsRequested(t *testing.T) {
	rt, _ := newRuntime(t)
	src := "model m = inference(\"anthropic\", api_key_env: \"SENSE_GO_NO_SUCH_KEY\")\n"
	if err := rt.RunSource("m.sns", src); err == nil || !strings.Contains(err.Error(), "unknown provider") {
		t.Fatalf("before registering: %v", err)
	}
	if err := rt.RegisterDefaultProviders(); err != nil {
		t.Fatal(err)
	}
	if err := rt.RunSource("m.sns", src); err == nil || !strings.Contains(err.Error(), "SENSE_GO_NO_SUCH_KEY") {
		t.Fatalf("after registering: %v", err)
	}

	mustRun(t, rt, "agent loop:\n    while true:\n        n = 1\n")
	loop, _ := rt.Agent("loop")
	h, err := rt.PauseHandle(loop)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if r, err := h.IsRequested(); err != nil || r {
		t.Fatalf("IsRequested before = %v %v", r, err)
	}
	if newly, err := h.Request(); err != nil || !newly {
		t.Fatalf("Request = %v %v", newly, err)
	}
	if r, err := h.IsRequested(); err != nil || !r {
		t.Fatalf("IsRequested after = %v %v", r, err)
	}
	if st, err := rt.Start(loop); err != nil || st != Paused {
		t.Fatalf("start: %v %v", st, err)
	}
	if r, _ := h.IsRequested(); r {
		t.Fatal("the request was not taken by the pause")
	}
}

type level int16

func TestEveryIntegerAndSliceConverts(t *testing.T) {
	rt, _ := newRuntime(t)
	cases := map[string]any{
		"a": int32(-3), "b": uint(4), "c": float32(1.5), "d": []string{"x", "y"},
		"e": int8(-8), "f": uint64(math.MaxInt64), "g": uint16(9), "h": level(2),
		"i": []int32{1, 2}, "j": [2]bool{true, false},
	}
	for name, v := range cases {
		if err := rt.SetGlobal(name, v); err != nil {
			t.Fatalf("SetGlobal(%s, %T): %v", name, v, err)
		}
	}
	want := map[string]string{
		"a": "-3", "b": "4", "c": "1.5", "d": "[x, y]", "e": "-8",
		"f": "9223372036854775807", "g": "9", "h": "2", "i": "[1, 2]", "j": "[true, false]",
	}
	for name, w := range want {
		got, err := rt.Call("str", mustGlobal(t, rt, name))
		if err != nil || got != w {
			t.Fatalf("str(%s) = %v, %v; want %s", name, got, err, w)
		}
	}
	if err := rt.SetGlobal("big", uint64(math.MaxInt64)+1); err == nil ||
		!strings.Contains(err.Error(), "does not fit") {
		t.Fatalf("an out-of-range uint64 was accepted: %v", err)
	}
	if err := rt.SetGlobal("bad", []any{1, struct{}{}}); err == nil {
		t.Fatal("a struct inside a slice was accepted")
	}
	for _, kw := range []string{"if", "true", "nil", "def", "", "1bad"} {
		var e *Error
		if err := rt.SetGlobal(kw, 1); !errors.As(err, &e) || e.Status != StatusInvalidArgument {
			t.Fatalf("SetGlobal(%q) = %v", kw, err)
		}
		if err := rt.RegisterFunc(kw, 0, func([]any) (any, error) { return nil, nil }); !errors.As(err, &e) ||
			e.Status != StatusInvalidArgument {
			t.Fatalf("RegisterFunc(%q) = %v", kw, err)
		}
	}
}

func mustGlobal(t *testing.T, rt *Runtime, name string) any {
	t.Helper()
	v, err := rt.Global(name)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestLatin1HostErrorIsKept(t *testing.T) {
	rt, _ := newRuntime(t)
	if err := rt.RegisterFunc("order", 0, func([]any) (any, error) {
		return nil, errors.New("caf\xe9 failed")
	}); err != nil {
		t.Fatal(err)
	}
	err := rt.RunSource("o.sns", "x = order()\nprint(\"went on\")\n")
	var e *Error
	if !errors.As(err, &e) || e.Status != StatusRuntimeError ||
		!strings.Contains(e.Message, "caf\uFFFD failed") {
		t.Fatalf("error = %#v", err)
	}
}
