N = 3000000
def count(n):
    total = 0
    for i in range(n):
        total = total + i * 3 % 11
    return total
print(count(N))
