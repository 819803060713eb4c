"""Values both ways: dict <-> Map, list <-> Array, scalars, agents, opaque
values, and refusals of what does not convert."""

from __future__ import annotations

import pytest

import sense


def test_scalars_lists_and_maps_round_trip(rt: sense.Runtime) -> None:
    value = {"n": 1, "f": 2.5, "s": "héllo", "b": True, "none": None,
             "xs": [1, [2, 3], {"k": "v"}], 7: "int key", False: "bool key"}
    rt.set_global("v", value)
    rt.run("w = v\nkeys = v.keys()\n")
    assert rt.get_global("w") == value
    assert rt.get_global("keys") == ["n", "f", "s", "b", "none", "xs", 7, False]


def test_sense_values_come_out_as_python_types(rt: sense.Runtime, printed: list[str]) -> None:
    rt.run('m = {"a": [1, 2.0, "x", nil, true]}\nprint(type_of(m))\n')
    m = rt.get_global("m")
    assert m == {"a": [1, 2.0, "x", None, True]}
    assert type(m["a"][0]) is int and type(m["a"][1]) is float and m["a"][4] is True
    assert printed == ["Map\n"]


def test_tuples_go_in_as_arrays(rt: sense.Runtime) -> None:
    rt.set_global("t", (1, "two"))
    rt.run("n = len(t)\n")
    assert rt.get_global("n") == 2
    assert rt.get_global("t") == [1, "two"]


def test_a_function_comes_out_opaque(rt: sense.Runtime) -> None:
    rt.run("def f(x):\n    return x\n")
    f = rt.get_global("f")
    assert isinstance(f, sense.Opaque)
    assert f.type_name == "Function"
    with pytest.raises(TypeError, match="Opaque"):
        rt.set_global("g", f)


def test_an_agent_is_a_value_both_ways(rt: sense.Runtime) -> None:
    rt.run("agent w:\n    pause()\nboth = [w, w]\n")
    a = rt.agent("w")
    both = rt.get_global("both")
    assert both == [a, a] and isinstance(both[0], sense.Agent)
    assert hash(both[0]) == hash(a)
    rt.set_global("again", a)
    rt.run("same = again == w\n")
    assert rt.get_global("same") is True


def test_refusals(rt: sense.Runtime) -> None:
    with pytest.raises(ValueError, match="64-bit"):
        rt.set_global("big", 2**70)
    with pytest.raises(TypeError, match="Map key"):
        rt.set_global("m", {(1, 2): "tuple key"})
    with pytest.raises(TypeError, match="cannot pass a set"):
        rt.set_global("s", {1, 2})
    looped: list[object] = []
    looped.append(looped)
    with pytest.raises(ValueError, match="contains itself"):
        rt.set_global("l", looped)
    # Nothing was bound by the refused calls.
    assert rt.get_global("big") is None
