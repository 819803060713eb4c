package sense_test

import (
	"fmt"
	"strings"

	sense "example.invalid/sense/bindings/go"
)

// An agent that pauses for an answer, resumed from Go.
func Example() {
	rt, err := sense.New()
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	var out strings.Builder
	rt.SetOutput(func(s string) { out.WriteString(s) })
	err = rt.RunSource("main.sns", "agent greeter:\n    name = ask_human(\"name?\")\n    print(\"hello\", name)\n")
	if err != nil {
		panic(err)
	}
	g, _ := rt.Agent("greeter")
	st, _ := rt.Start(g)
	q, _, _ := rt.PauseReasonString(g)
	fmt.Println(st, q)
	st, _ = rt.Resume(g, "Ada")
	fmt.Print(st, " ", out.String())
	// Output:
	// paused name?
	// completed hello Ada
}

// Calling a Sense function with Go arguments.
func ExampleRuntime_Call() {
	rt, _ := sense.New()
	defer rt.Close()
	rt.SetGlobal("rate", 3)
	rt.RunSource("m.sns", "def cost(n):\n    return n * rate\n")
	v, err := rt.Call("cost", 14)
	fmt.Println(v, err)
	_, err = rt.Call("nope")
	fmt.Println(err.(*sense.Error).Status == sense.StatusNotFound)
	// Output:
	// 42 <nil>
	// true
}

// A Go host function that pauses the agent calling it until the host
// answers.
func ExampleRuntime_RegisterCallFunc() {
	rt, _ := sense.New()
	defer rt.Close()
	var out strings.Builder
	rt.SetOutput(func(s string) { out.WriteString(s) })
	rt.RegisterCallFunc("approve", 1, func(c *sense.Call) (any, error) {
		if !c.FromAgent {
			return false, nil
		}
		return sense.Suspend{Reason: "approve " + c.Args[0].(string) + "?"}, nil
	})
	rt.RunSource("m.sns", "agent deploy:\n    ok = approve(\"web-1\")\n    print(\"approved:\", ok)\n")
	d, _ := rt.Agent("deploy")
	rt.Start(d)
	reason, _ := rt.PauseReason(d)
	fmt.Println(reason)
	rt.Resume(d, true)
	fmt.Print(out.String())
	// Output:
	// approve web-1?
	// approved: true
}
