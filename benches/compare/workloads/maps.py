N = 200000
# Insert N string keys into a dict, then look each one up and sum the values.
def run(n):
    m = {}
    i = 0
    while i < n:
        m["k" + str(i)] = i
        i = i + 1
    total = 0
    i = 0
    while i < n:
        total = total + m["k" + str(i)]
        i = i + 1
    return total
print(run(N))
