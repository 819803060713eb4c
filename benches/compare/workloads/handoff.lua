local N = 2000000
-- An agent resumed N times from Sense code, each time with an Int it adds
-- up (Lua: a coroutine; Python: a generator).
local total = 0
local worker = coroutine.wrap(function()
  while true do
    total = total + coroutine.yield()
  end
end)
worker()
local i = 0
while i < N do
  worker(i % 10)
  i = i + 1
end
print(total)
