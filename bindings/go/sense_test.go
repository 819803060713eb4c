package sense

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const workflow = `servers = ["web-1", "web-2"]
deployed = []
agent release:
    print("preparing v2.1")
    answer = ask_human("Deploy v2.1 to " + str(len(servers)) + " servers? (yes/no)")
    if answer != "yes":
        print("release cancelled")
        return
    for h in servers:
        if healthy(h):
            push(deployed, h)
    print("deployed to", len(deployed), "servers")
`

func newRuntime(t *testing.T) (*Runtime, *strings.Builder) {
	t.Helper()
	rt, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	out := &strings.Builder{}
	if err := rt.SetOutput(func(s string) { out.WriteString(s) }); err != nil {
		t.Fatal(err)
	}
	return rt, out
}

// startPaused looks up the agent bound to name and starts it, failing
// the test unless it pauses.
func startPaused(t *testing.T, rt *Runtime, name string) Agent {
	t.Helper()
	a, err := rt.Agent(name)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := rt.Start(a); err != nil || st != Paused {
		t.Fatalf("start %s: %v %v", name, st, err)
	}
	return a
}

// runProgram is a new runtime (see newRuntime) that ran src.
func runProgram(t *testing.T, src string) (*Runtime, *strings.Builder) {
	t.Helper()
	rt, out := newRuntime(t)
	mustRun(t, rt, src)
	return rt, out
}

func approvalFlow(t *testing.T, answer, wantOut string, wantDeployed int) {
	rt, out := newRuntime(t)
	must(t, rt.RegisterFunc("healthy", 1, func(args []any) (any, error) {
		return args[0] == "web-1", nil
	}))
	must(t, rt.RunSource("release.sns", workflow))
	release, err := rt.Agent("release")
	must(t, err)
	status, err := rt.Start(release)
	must(t, err)
	if status != Paused {
		t.Fatalf("status %v, want paused", status)
	}
	kind, err := rt.PauseKind(release)
	must(t, err)
	if kind != AskHuman {
		t.Fatalf("pause kind %v, want AskHuman", kind)
	}
	question, err := rt.PauseReason(release)
	must(t, err)
	if question != "Deploy v2.1 to 2 servers? (yes/no)" {
		t.Fatalf("question %q", question)
	}
	status, err = rt.Resume(release, answer)
	must(t, err)
	if status != Completed {
		t.Fatalf("status %v, want completed", status)
	}
	if out.String() != wantOut {
		t.Fatalf("output %q, want %q", out.String(), wantOut)
	}
	deployed, err := rt.Global("deployed")
	must(t, err)
	if got := len(deployed.([]any)); got != wantDeployed {
		t.Fatalf("deployed %v", deployed)
	}
	// A completed agent cannot be resumed.
	_, err = rt.Resume(release, nil)
	var serr *Error
	if !errors.As(err, &serr) || serr.Status != StatusWrongState {
		t.Fatalf("resume after completion: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestApprovalApproved(t *testing.T) {
	approvalFlow(t, "yes", "preparing v2.1\ndeployed to 1 servers\n", 1)
}

func TestApprovalRejected(t *testing.T) {
	approvalFlow(t, "no", "preparing v2.1\nrelease cancelled\n", 0)
}

func TestHostFunctions(t *testing.T) {
	rt, out := newRuntime(t)
	must(t, rt.RegisterFunc("add", 2, func(args []any) (any, error) {
		a, ok1 := args[0].(int64)
		b, ok2 := args[1].(int64)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("add() expects two Ints, got %T and %T", args[0], args[1])
		}
		return a + b, nil
	}))
	must(t, rt.RegisterFunc("approve", 1, func(args []any) (any, error) {
		return Suspend{Reason: fmt.Sprintf("approve %v?", args[0])}, nil
	}))
	must(t, rt.RegisterFunc("boom", 0, func(args []any) (any, error) {
		panic("kaboom")
	}))
	must(t, rt.RunSource("m.sns", "print(add(40, 2), [1, 2.5, nil, true])"))
	if out.String() != "42 [1, 2.5, nil, true]\n" {
		t.Fatalf("output %q", out.String())
	}

	err := rt.RunSource("e.sns", `add(1, "x")`)
	var serr *Error
	if !errors.As(err, &serr) || serr.Status != StatusRuntimeError ||
		!strings.Contains(serr.Message, "add() expects two Ints, got int64 and string") {
		t.Fatalf("error %#v", err)
	}
	err = rt.RunSource("p.sns", "boom()")
	if !errors.As(err, &serr) || !strings.Contains(serr.Message, "panic in Go host function: kaboom") {
		t.Fatalf("error %#v", err)
	}

	must(t, rt.RunSource("a.sns", "agent a:\n    ok = approve(\"deploy\")\n    print(\"approved:\", ok)\n"))
	a, err := rt.Agent("a")
	must(t, err)
	status, err := rt.Start(a)
	must(t, err)
	kind, _ := rt.PauseKind(a)
	reason, _ := rt.PauseReason(a)
	if status != Paused || kind != HostFunction || reason != "approve deploy?" {
		t.Fatalf("status %v kind %v reason %v", status, kind, reason)
	}
	status, err = rt.Resume(a, true)
	must(t, err)
	if status != Completed || !strings.HasSuffix(out.String(), "approved: true\n") {
		t.Fatalf("status %v output %q", status, out.String())
	}
}

func TestErrors(t *testing.T) {
	rt, _ := newRuntime(t)
	err := rt.RunSource("s.sns", "x = 1\nif x == 1\n    print(x)\n")
	var serr *Error
	if !errors.As(err, &serr) {
		t.Fatalf("not a *sense.Error: %v", err)
	}
	if serr.Status != StatusSyntaxError || serr.Class != "SenseSyntaxError" ||
		serr.Line != 2 || serr.Column != 10 || !strings.Contains(serr.Rendered, "s.sns:2:10") {
		t.Fatalf("%#v", serr)
	}
	err = rt.RunSource("r.sns", "y = 1 / 0")
	if !errors.As(err, &serr) || serr.Class != "SenseRuntimeError" || serr.Message != "[line 1] division by zero" {
		t.Fatalf("%#v", err)
	}
	_, err = rt.Agent("ghost")
	if !errors.As(err, &serr) || serr.Status != StatusNotFound {
		t.Fatalf("%#v", err)
	}
	if err := rt.RunFile("does/not/exist.sns"); !errors.As(err, &serr) || serr.Status != StatusNotFound {
		t.Fatalf("%#v", err)
	}
	if _, err := rt.Resume(Agent{}, map[string]int{}); err == nil {
		t.Fatal("a map cannot become a Sense value")
	}
}

func TestInputAndMessages(t *testing.T) {
	rt, out := newRuntime(t)
	lines := []string{"Ada"}
	must(t, rt.SetInput(func() (string, bool) {
		if len(lines) == 0 {
			return "", false
		}
		l := lines[0]
		lines = lines[1:]
		return l, true
	}))
	must(t, rt.RunSource("i.sns", `print("hi", ask_human("Name?"))`))
	if out.String() != "Name?\n> hi Ada\n" {
		t.Fatalf("output %q", out.String())
	}
	if err := rt.RunSource("j.sns", `ask_human("More?")`); err == nil {
		t.Fatal("end of input should fail")
	}

	out.Reset()
	must(t, rt.RunSource("m.sns", "agent inbox:\n    while true:\n        print(\"got\", receive())\n"))
	inbox, err := rt.Agent("inbox")
	must(t, err)
	_, err = rt.Start(inbox)
	must(t, err)
	if kind, _ := rt.PauseKind(inbox); kind != WaitingMessage {
		t.Fatalf("kind %v", kind)
	}
	must(t, rt.Send(inbox, "one"))
	must(t, rt.Send(inbox, []any{int64(2), "three"}))
	_, err = rt.Resume(inbox, nil)
	must(t, err)
	if out.String() != "got one\ngot [2, three]\n" {
		t.Fatalf("output %q", out.String())
	}
}

func TestProvider(t *testing.T) {
	rt, out := newRuntime(t)
	must(t, rt.RegisterProvider("acme", "", "acme-1", func(model, prompt string) (string, error) {
		if prompt == "fail" {
			return "", errors.New("acme is down")
		}
		return model + " says " + prompt, nil
	}))
	must(t, rt.RunSource("p.sns", "model m = inference(\"acme\")\nprint(m.ask(\"hi\").value)\n"))
	if out.String() != "acme-1 says hi\n" {
		t.Fatalf("output %q", out.String())
	}
	if err := rt.RunSource("q.sns", `m.ask("fail")`); err == nil || !strings.Contains(err.Error(), "acme is down") {
		t.Fatalf("error %v", err)
	}
}

func TestPauseFromAnotherGoroutine(t *testing.T) {
	rt, out := newRuntime(t)
	var started, stop atomic.Bool
	must(t, rt.RegisterFunc("started", 0, func([]any) (any, error) { started.Store(true); return nil, nil }))
	must(t, rt.RegisterFunc("keep_going", 0, func([]any) (any, error) { return !stop.Load(), nil }))
	must(t, rt.RunSource("s.sns", "agent spinner:\n    started()\n    i = 0\n    while keep_going():\n        i = i + 1\n    print(\"stopped after\", i > 0)\n"))
	spinner, err := rt.Agent("spinner")
	must(t, err)
	handle, err := rt.PauseHandle(spinner)
	must(t, err)
	defer handle.Close()
	done := make(chan error, 1)
	go func() {
		for !started.Load() {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(20 * time.Millisecond)
		_, err := handle.Request()
		done <- err
	}()
	status, err := rt.Start(spinner)
	must(t, err)
	must(t, <-done)
	kind, _ := rt.PauseKind(spinner)
	if status != Paused || kind != HostRequest {
		t.Fatalf("status %v kind %v", status, kind)
	}
	stop.Store(true)
	status, err = rt.Resume(spinner, nil)
	must(t, err)
	if status != Completed || out.String() != "stopped after true\n" {
		t.Fatalf("status %v output %q", status, out.String())
	}
}

func TestConfigAndClose(t *testing.T) {
	rt, err := NewWithConfig(Config{MaxSteps: 100})
	must(t, err)
	must(t, rt.SetOutput(func(string) {}))
	if err := rt.RunSource("l.sns", "while true:\n    x = 1\n"); err == nil || !strings.Contains(err.Error(), "step budget exhausted") {
		t.Fatalf("error %v", err)
	}
	if _, err := NewWithConfig(Config{MaxDepth: 0}); err != nil {
		t.Fatal(err)
	}
	must(t, rt.Close())
	must(t, rt.Close())
	if Version() == "" {
		t.Fatal("no version")
	}
}

// Forgotten runtimes (with paused agents and Go callbacks) are freed by
// their finalizers.
func TestFinalizerFreesForgottenRuntime(t *testing.T) {
	for i := 0; i < 20; i++ {
		rt, err := New()
		must(t, err)
		must(t, rt.SetOutput(func(string) {}))
		must(t, rt.RunSource("f.sns", "agent a:\n    pause()\n"))
		a, err := rt.Agent("a")
		must(t, err)
		_, err = rt.Start(a)
		must(t, err)
	}
	runtime.GC()
	runtime.GC()
}

const release = `servers = ["web-1", "web-2"]
agent release:
    print("preparing")
    ok = approve("deploy to " + str(len(servers)) + " servers")
    note = ask_human("notes?")
    print("approved:", ok, "notes:", note)
`

func approveFunc(args []any) (any, error) {
	return Suspend{Reason: fmt.Sprintf("approve %v?", args[0])}, nil
}

// pausedSnapshot runs the release until approve() suspends it and returns
// the snapshot bytes (the runtime is closed).
func pausedSnapshot(t *testing.T) []byte {
	rt, out := newRuntime(t)
	must(t, rt.RegisterFunc("approve", 1, approveFunc))
	must(t, rt.RunSource("release.sns", release))
	a, err := rt.Agent("release")
	must(t, err)
	_, err = rt.Start(a)
	must(t, err)
	must(t, rt.SetSubject(a))
	data, err := rt.Snapshot()
	must(t, err)
	must(t, rt.Close())
	if out.String() != "preparing\n" {
		t.Fatalf("output %q", out.String())
	}
	return data
}

func TestSnapshotAcrossRuntimes(t *testing.T) {
	data := pausedSnapshot(t)

	rt, out := newRuntime(t)
	must(t, rt.RegisterFunc("approve", 1, approveFunc))
	must(t, rt.Restore(data))
	a, ok, err := rt.Subject()
	must(t, err)
	if !ok {
		t.Fatal("no subject after restore")
	}
	kind, _ := rt.PauseKind(a)
	reason, _ := rt.PauseReason(a)
	if kind != HostFunction || reason != "approve deploy to 2 servers?" {
		t.Fatalf("kind %v reason %v", kind, reason)
	}
	status, err := rt.Resume(a, true)
	must(t, err)
	if status != Paused {
		t.Fatalf("status %v", status)
	}

	// A second hop, mid-way through.
	again, err := rt.Snapshot()
	must(t, err)
	must(t, rt.Close())
	rt2, out2 := newRuntime(t)
	must(t, rt2.RegisterFunc("approve", 1, approveFunc))
	must(t, rt2.Restore(again))
	a2, ok, err := rt2.Subject()
	must(t, err)
	if !ok || a2 != a {
		t.Fatalf("subject %v %v, want %v", a2, ok, a)
	}
	status, err = rt2.Resume(a2, "ship it")
	must(t, err)
	if status != Completed || out.String() != "" || out2.String() != "approved: true notes: ship it\n" {
		t.Fatalf("status %v output %q then %q", status, out.String(), out2.String())
	}

	must(t, rt2.ClearSubject())
	if _, ok, err := rt2.Subject(); ok || err != nil {
		t.Fatalf("subject after clear: %v %v", ok, err)
	}
}

func TestRestoreErrors(t *testing.T) {
	data := pausedSnapshot(t)
	var serr *Error

	// A missing host function is named; registering it makes a retry work.
	rt, _ := newRuntime(t)
	err := rt.Restore(data)
	if !errors.As(err, &serr) || serr.Status != StatusRuntimeError ||
		!strings.Contains(serr.Message, "host function 'approve', which is not registered") {
		t.Fatalf("error %#v", err)
	}
	must(t, rt.RegisterFunc("approve", 1, approveFunc))
	must(t, rt.Restore(data))

	// Only a new runtime takes a snapshot.
	err = rt.Restore(data)
	if !errors.As(err, &serr) || serr.Status != StatusWrongState {
		t.Fatalf("error %#v", err)
	}

	// Every truncation is refused, and leaves the runtime new.
	fresh, _ := newRuntime(t)
	must(t, fresh.RegisterFunc("approve", 1, approveFunc))
	for n := 0; n < len(data); n++ {
		err := fresh.Restore(data[:n])
		if !errors.As(err, &serr) || serr.Status != StatusRuntimeError || serr.Message == "" {
			t.Fatalf("truncated at %d: %#v", n, err)
		}
	}
	must(t, fresh.Restore(data))
}
