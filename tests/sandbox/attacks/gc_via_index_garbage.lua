-- Variant of gc_via_index.lua: the smuggled __gc object is garbage, so its
-- finalizer (endless loop, hooks off) runs at a GC step inside the call.
-- RESULT: no hook can stop it; the last resort kills the agent at 300 ms
-- (3x the 100 ms budget); the agent loses its state for the whole game.
-- Without the watchdog (AIWOLF_SANDBOX_NO_WATCHDOG=1) this hangs the host.
local agent = {}
function agent:initialize()
  local mt = setmetatable({}, { __index = function(t, k) if k == "__gc" then rawset(t, "__gc", function() while true do end end) end end })
  setmetatable({}, mt)
  for i = 1, 1e6 do local t = {i} end
end
return agent
