N = 1000000
# Build N strings into an array, then sum their lengths.
def build(n):
    parts = []
    i = 0
    while i < n:
        parts.append("item-" + str(i))
        i = i + 1
    return parts
total = 0
for s in build(N):
    total = total + len(s)
print(total)
