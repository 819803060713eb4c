local N = 200000
-- Insert N string keys into a table, then look each one up and sum the values.
local function run(n)
  local m = {}
  local i = 0
  while i < n do
    m["k" .. tostring(i)] = i
    i = i + 1
  end
  local total = 0
  i = 0
  while i < n do
    total = total + m["k" .. tostring(i)]
    i = i + 1
  end
  return total
end
print(run(N))
