N = 2000000
# An agent resumed N times from Sense code, each time with an Int it adds
# up (Lua: a coroutine; Python: a generator).
total = 0
def worker():
    global total
    while True:
        total = total + (yield)
w = worker()
next(w)
i = 0
while i < N:
    w.send(i % 10)
    i = i + 1
print(total)
