N = 3000000
def count(n):
    i = 0
    total = 0
    while i < n:
        total = total + i % 7
        i = i + 1
    return total
print(count(N))
