N = 1000000
# Reading an agent's variables as members (Lua: table fields; Python:
# object attributes).
class Box:
    def __init__(self):
        self.width = 3
        self.height = 4
        self.depth = 5
box = Box()
def measure(b, n):
    total = 0
    i = 0
    while i < n:
        total = total + b.width * b.height + b.depth
        i = i + 1
    return total
print(measure(box, N))
