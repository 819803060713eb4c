N = 300000
# Closures made by a function, passed to a higher-order function.
def make_adder(k):
    def add(x):
        return x + k
    return add
def apply_twice(f, x):
    return f(f(x))
adders = [make_adder(1), make_adder(2), make_adder(3), make_adder(4)]
def run(n):
    total = 0
    i = 0
    while i < n:
        total = total + apply_twice(adders[i % 4], i) % 10
        i = i + 1
    return total
print(run(N))
