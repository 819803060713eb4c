"""Running programs, errors with tracebacks, host functions, agents,
snapshots and the default providers."""

from __future__ import annotations

import pytest

import sense


def test_run_and_print(rt: sense.Runtime, printed: list[str]) -> None:
    rt.run('print("hi", 1 + 2)\n', "hello.sns")
    assert printed == ["hi 3\n"]


def test_default_output_is_sys_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    sense.Runtime().run('print("to stdout")\n')
    assert capsys.readouterr().out == "to stdout\n"


def test_errors_carry_class_line_and_traceback(rt: sense.Runtime) -> None:
    src = "def inner(x):\n    return x / 0\n\ndef outer(x):\n    return inner(x)\n\nouter(1)\n"
    with pytest.raises(sense.SenseError) as info:
        rt.run(src, "calc.sns")
    e = info.value
    assert e.class_name == "SenseRuntimeError"
    assert e.message == "[line 2] division by zero"
    assert (e.line, e.column) == (2, 12)
    assert "--> calc.sns:2:12" in e.rendered
    assert e.traceback == (
        "stack traceback (most recent call last):\n"
        "  calc.sns:7: in <main>\n  calc.sns:5: in outer\n  calc.sns:2: in inner\n"
    )
    assert str(e).startswith("SenseRuntimeError: [line 2] division by zero\nstack traceback")


def test_syntax_error_has_no_traceback(rt: sense.Runtime) -> None:
    with pytest.raises(sense.SenseError) as info:
        rt.run("x = (\n")
    assert info.value.class_name == "SenseSyntaxError"
    assert info.value.traceback == ""


def test_host_functions_are_python_callables(rt: sense.Runtime) -> None:
    seen: list[object] = []

    def lookup(key: str, table: dict[str, int]) -> int:
        seen.append((key, table))
        return table[key] * 10

    rt.register("lookup", lookup, 2)
    rt.register("total", lambda *xs: sum(xs))
    rt.run('a = lookup("b", {"a": 1, "b": 2})\nt = total(1, 2, 3)\n')
    assert rt.get_global("a") == 20
    assert rt.get_global("t") == 6
    assert seen == [("b", {"a": 1, "b": 2})]


def test_a_python_exception_becomes_a_catchable_sense_error(rt: sense.Runtime) -> None:
    def lookup(key: str) -> int:
        raise KeyError(key)

    rt.register("lookup", lookup, 1)
    rt.run(
        'caught = nil\ntry:\n    lookup("gone")\nexcept SenseRuntimeError as e:\n    caught = e.message\n'
    )
    assert rt.get_global("caught") == "KeyError: 'gone'"
    with pytest.raises(sense.SenseError, match="KeyError: 'missing'") as info:
        rt.run('def go():\n    lookup("missing")\ngo()\n', "h.sns")
    assert info.value.traceback.endswith("  h.sns:2: in go\n")


def test_register_refuses_bad_names_and_non_callables(rt: sense.Runtime) -> None:
    with pytest.raises(sense.SenseError, match="not a name"):
        rt.register("1bad", lambda: 1)
    with pytest.raises(TypeError, match="callable"):
        rt.register("f", 3)  # type: ignore[arg-type]


def test_a_host_function_calling_back_is_refused_not_deadlocked(rt: sense.Runtime) -> None:
    rt.register("reenter", lambda: rt.run("x = 1\n"), 0)
    with pytest.raises(sense.SenseError, match="busy"):
        rt.run("reenter()\n")
    # The runtime is usable again afterwards.
    rt.run("y = 2\n")
    assert rt.get_global("y") == 2


def test_agents_start_pause_resume(rt: sense.Runtime, printed: list[str]) -> None:
    rt.run(
        'agent greeter:\n    name = pause("who?")\n    print("hello " + name)\n'
    )
    a = rt.agent("greeter")
    assert rt.status(a) == "created"
    assert rt.agents() == [a]
    assert rt.start(a) == "paused"
    assert rt.pause_reason(a) == "who?"
    assert rt.pause_kind(a) == "self"
    assert rt.resume(a, "Ada") == "completed"
    assert rt.status(a) == "completed"
    assert printed == ["hello Ada\n"]
    assert rt.agent_name(a) == "greeter"


def test_suspend_from_a_host_function(rt: sense.Runtime) -> None:
    rt.register("approve", lambda what: sense.Suspend({"approve": what}), 1)
    rt.run("agent w:\n    ok = approve(\"deploy\")\n    result = ok\n")
    a = rt.agent("w")
    assert rt.start(a) == "paused"
    assert rt.pause_kind(a) == "host_function"
    assert rt.pause_reason(a) == {"approve": "deploy"}
    assert rt.resume(a, True) == "completed"


def test_a_failing_agent_raises_with_its_frames(rt: sense.Runtime) -> None:
    rt.run("agent w:\n    n = pause()\n    x = 1 / n\n", "a.sns")
    a = rt.agent("w")
    rt.start(a)
    with pytest.raises(sense.SenseError) as info:
        rt.resume(a, 0)
    assert info.value.traceback.endswith("  a.sns:3: in w\n")
    assert rt.status(a) == "failed"


def test_send_call_and_globals(rt: sense.Runtime) -> None:
    rt.run(
        "def add(a, b):\n    return a + b\n"
        "agent inbox:\n    m = receive()\n    got = m\n    pause(m)\n"
    )
    assert rt.call("add", 2, 3) == 5
    a = rt.agent("inbox")
    rt.send(a, {"task": "x"})
    assert rt.start(a) == "paused"
    assert rt.pause_reason(a) == {"task": "x"}
    assert {"add", "inbox"} <= set(rt.global_names())


def test_snapshot_is_bytes_and_restores(printed: list[str]) -> None:
    first = sense.Runtime(output=printed.append)
    first.run('agent w:\n    n = pause("n?")\n    print(n * 2)\n')
    first.start(first.agent("w"))
    data = first.snapshot()
    assert isinstance(data, bytes) and len(data) > 0
    second = sense.Runtime(output=printed.append)
    second.restore(data)
    w = second.agent("w")
    assert second.status(w) == "paused"
    assert second.resume(w, 21) == "completed"
    assert printed == ["42\n"]
    with pytest.raises(sense.SenseError):
        sense.Runtime().restore(b"not a snapshot")


def test_default_providers(printed: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Making a model opens no connection; only the key must be there.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    rt = sense.Runtime(output=printed.append, default_providers=True)
    rt.run('model m = inference("openai")\nprint(type_of(m))\n')
    assert printed == ["Model\n"]
    bare = sense.Runtime(output=printed.append)
    with pytest.raises(sense.SenseError, match="openai"):
        bare.run('model m = inference("openai")\n')
    bare.register_default_providers()
    bare.run('model m2 = inference("anthropic")\n')
