N = 42
# The smallest workload: CI runs it once on every peer so the script
# cannot rot. Start an agent, resume it once.
def echo():
    x = yield
    print("echo", x)
e = echo()
next(e)
try:
    e.send(N)
except StopIteration:
    pass
