local N = 50000
-- Quicksort (Lomuto) of N pseudo-random Ints, written out (Sense has no
-- sort builtin; Lua and Python use the same algorithm, not their own sort).
-- Lua arrays start at 1: the same algorithm over a[1..N].
local function fill(n)
  local xs = {}
  local seed = 42
  local i = 0
  while i < n do
    seed = (seed * 1103515245 + 12345) % 2147483648
    xs[#xs + 1] = seed % 100000
    i = i + 1
  end
  return xs
end
local function quicksort(a, lo, hi)
  if lo >= hi then return nil end
  local pivot = a[hi]
  local i = lo
  local j = lo
  while j < hi do
    if a[j] < pivot then
      local t = a[i]
      a[i] = a[j]
      a[j] = t
      i = i + 1
    end
    j = j + 1
  end
  a[hi] = a[i]
  a[i] = pivot
  quicksort(a, lo, i - 1)
  quicksort(a, i + 1, hi)
end
local xs = fill(N)
quicksort(xs, 1, N)
local disorder = 0
local checksum = 0
local i = 2
while i <= N do
  if xs[i - 1] > xs[i] then
    disorder = disorder + 1
  end
  checksum = (checksum * 31 + xs[i]) % 1000000007
  i = i + 1
end
print(disorder .. " " .. checksum)
