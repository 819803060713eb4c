"""The Python chapter's example (docs/book/src/python.md): a host
function, an agent that asks a human, a snapshot taken while it waits,
and an error's Sense traceback. tests/test_examples.py runs it."""

import sense

PROGRAM = """
def shout(text):
    return upper(text) + "!"

agent greeter:
    name = ask_human("What is your name?")
    print(shout("hello " + name))

def broken(x):
    return x / 0
"""

rt = sense.Runtime()
rt.register("upper", lambda s: s.upper(), 1)
rt.run(PROGRAM, "greeter.sns")

greeter = rt.agent("greeter")
print(rt.start(greeter), rt.pause_kind(greeter), rt.pause_reason(greeter))

# The paused agent is data: save it, and answer it in a new runtime.
saved = rt.snapshot()
later = sense.Runtime()
later.register("upper", lambda s: s.upper(), 1)
later.restore(saved)
print(later.resume(later.agent("greeter"), "Ada"))

try:
    later.call("broken", 1)
except sense.SenseError as e:
    print(e.class_name, e.message)
    print(e.traceback, end="")
