local N = 300000
-- Closures made by a function, passed to a higher-order function.
local function make_adder(k)
  return function(x) return x + k end
end
local function apply_twice(f, x)
  return f(f(x))
end
local adders = {make_adder(1), make_adder(2), make_adder(3), make_adder(4)}
local function run(n)
  local total = 0
  local i = 0
  while i < n do
    total = total + apply_twice(adders[i % 4 + 1], i) % 10
    i = i + 1
  end
  return total
end
print(run(N))
