local N = 3000000
local function count(n)
  local total = 0
  for i = 0, n - 1 do
    total = total + i * 3 % 11
  end
  return total
end
print(count(N))
