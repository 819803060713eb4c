N = 2000
# Every pair of two N-element arrays: N*N inner iterations.
def pairs(xs, ys):
    count = 0
    for x in xs:
        for y in ys:
            if (x + y) % 3 == 0:
                count = count + 1
    return count
xs = []
ys = []
for i in range(N):
    xs.append(i * 7 % 13)
    ys.append(i * 5 % 17)
print(pairs(xs, ys))
