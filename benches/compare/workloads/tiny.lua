local N = 42
-- The smallest workload: CI runs it once on every peer so the script
-- cannot rot. Start an agent, resume it once.
local echo = coroutine.wrap(function()
  local x = coroutine.yield()
  print("echo " .. x)
end)
echo()
echo(N)
