local N = 1000000
-- Reading an agent's variables as members (Lua: table fields; Python:
-- object attributes).
local box = {width = 3, height = 4, depth = 5}
local function measure(b, n)
  local total = 0
  local i = 0
  while i < n do
    total = total + b.width * b.height + b.depth
    i = i + 1
  end
  return total
end
print(measure(box, N))
