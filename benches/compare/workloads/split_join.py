N = 2000
# Split a line of 1,000 words and join the parts again, N times.
def run(n):
    words = []
    i = 0
    while i < 1000:
        words.append("w" + str(i))
        i = i + 1
    line = " ".join(words)
    total = 0
    k = 0
    while k < n:
        parts = line.split(" ")
        total = total + len(",".join(parts))
        k = k + 1
    return total
print(run(N))
