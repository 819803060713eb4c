local N = 16
-- Build complete binary trees of depth N as nested arrays and walk them.
local function make(d)
  if d == 0 then return {} end
  return {make(d - 1), make(d - 1)}
end
local function check(t)
  if #t == 0 then return 1 end
  return 1 + check(t[1]) + check(t[2])
end
local total = 0
local round = 0
while round < 4 do
  total = total + check(make(N))
  round = round + 1
end
print(total)
