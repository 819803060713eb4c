local N = 3000000
local function count(n)
  local i = 0
  local total = 0
  while i < n do
    total = total + i % 7
    i = i + 1
  end
  return total
end
print(count(N))
