N = 3000000
i = 0
total = 0
while i < N:
    total = total + i % 7
    i = i + 1
print(total)
