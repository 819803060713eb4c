local N = 1000000
-- Build N strings into an array, then sum their lengths.
local function build(n)
  local parts = {}
  local i = 0
  while i < n do
    parts[#parts + 1] = "item-" .. tostring(i)
    i = i + 1
  end
  return parts
end
local total = 0
for _, s in ipairs(build(N)) do
  total = total + #s
end
print(total)
