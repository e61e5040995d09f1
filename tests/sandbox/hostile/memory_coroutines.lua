-- expect: memory
-- budget: 2000
-- A coroutine swarm.
return { run = function()
  local t = {}
  while true do t[#t + 1] = coroutine.create(function() coroutine.yield() end) coroutine.resume(t[#t]) end
end }
