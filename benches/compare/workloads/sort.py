N = 50000
# Quicksort (Lomuto) of N pseudo-random Ints, written out (Sense has no
# sort builtin; Lua and Python use the same algorithm, not their own sort).
def fill(n):
    xs = []
    seed = 42
    i = 0
    while i < n:
        seed = (seed * 1103515245 + 12345) % 2147483648
        xs.append(seed % 100000)
        i = i + 1
    return xs
def quicksort(a, lo, hi):
    if lo >= hi:
        return None
    pivot = a[hi]
    i = lo
    j = lo
    while j < hi:
        if a[j] < pivot:
            t = a[i]
            a[i] = a[j]
            a[j] = t
            i = i + 1
        j = j + 1
    a[hi] = a[i]
    a[i] = pivot
    quicksort(a, lo, i - 1)
    quicksort(a, i + 1, hi)
xs = fill(N)
quicksort(xs, 0, N - 1)
disorder = 0
checksum = 0
i = 1
while i < N:
    if xs[i - 1] > xs[i]:
        disorder = disorder + 1
    checksum = (checksum * 31 + xs[i]) % 1000000007
    i = i + 1
print(disorder, checksum)
