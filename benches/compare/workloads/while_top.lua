-- Top-level locals: Lua's idiom for a script's variables.
local N = 3000000
local i = 0
local total = 0
while i < N do
  total = total + i % 7
  i = i + 1
end
print(total)
