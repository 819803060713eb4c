package sense

import (
	"errors"
	"testing"
)

const tracebackHead = "stack traceback (most recent call last):\n"

// An error's Traceback lists the Sense frames it came through, innermost
// last: nested calls, a host function returning a Go error, an agent
// failing after a resume; a syntax error has none.
func TestErrorTraceback(t *testing.T) {
	rt, _ := newRuntime(t)
	var e *Error
	err := rt.RunSource("t.sns", "def inner(x):\n    return x / 0\ndef outer(x):\n    return inner(x)\nouter(1)\n")
	if !errors.As(err, &e) {
		t.Fatalf("run: %v", err)
	}
	want := tracebackHead + "  t.sns:5: in <main>\n  t.sns:4: in outer\n  t.sns:2: in inner\n"
	if e.Traceback != want {
		t.Fatalf("traceback %q, want %q", e.Traceback, want)
	}

	if err := rt.RegisterFunc("refuse", 0, func([]any) (any, error) {
		return nil, errors.New("refused by Go")
	}); err != nil {
		t.Fatal(err)
	}
	err = rt.RunSource("h.sns", "def go():\n    refuse()\ngo()\n")
	if !errors.As(err, &e) {
		t.Fatalf("run: %v", err)
	}
	if want := tracebackHead + "  h.sns:3: in <main>\n  h.sns:2: in go\n"; e.Traceback != want {
		t.Fatalf("traceback %q, want %q", e.Traceback, want)
	}

	mustRun(t, rt, "def check(v):\n    return 1 / v\nagent worker:\n    got = pause(\"n?\")\n    check(got)\n")
	a, err := rt.Agent("worker")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Start(a); err != nil {
		t.Fatal(err)
	}
	_, err = rt.ResumeInt(a, 0)
	if !errors.As(err, &e) {
		t.Fatalf("resume: %v", err)
	}
	if want := tracebackHead + "  t.sns:5: in worker\n  t.sns:2: in check\n"; e.Traceback != want {
		t.Fatalf("traceback %q, want %q", e.Traceback, want)
	}

	err = rt.RunSource("s.sns", "x = (\n")
	if !errors.As(err, &e) || e.Status != StatusSyntaxError || e.Traceback != "" {
		t.Fatalf("syntax error: %v (traceback %q)", err, e.Traceback)
	}
}
