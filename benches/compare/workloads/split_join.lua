local N = 2000
-- Split a line of 1,000 words and join the parts again, N times.
local function run(n)
  local words = {}
  for i = 0, 999 do
    words[#words + 1] = "w" .. tostring(i)
  end
  local line = table.concat(words, " ")
  local total = 0
  for _ = 1, n do
    local parts = {}
    for w in string.gmatch(line, "[^ ]+") do
      parts[#parts + 1] = w
    end
    total = total + #table.concat(parts, ",")
  end
  return total
end
print(run(N))
