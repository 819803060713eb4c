N = 16
# Build complete binary trees of depth N as nested arrays and walk them.
def make(d):
    if d == 0:
        return []
    return [make(d - 1), make(d - 1)]
def check(t):
    if len(t) == 0:
        return 1
    return 1 + check(t[0]) + check(t[1])
total = 0
round = 0
while round < 4:
    total = total + check(make(N))
    round = round + 1
print(total)
