local N = 2000
-- Every pair of two N-element arrays: N*N inner iterations.
local function pairs_(xs, ys)
  local count = 0
  for _, x in ipairs(xs) do
    for _, y in ipairs(ys) do
      if (x + y) % 3 == 0 then
        count = count + 1
      end
    end
  end
  return count
end
local xs = {}
local ys = {}
for i = 0, N - 1 do
  xs[#xs + 1] = i * 7 % 13
  ys[#ys + 1] = i * 5 % 17
end
print(pairs_(xs, ys))
