-- expect: timeout, ok
-- A coroutine with a pending <close> that loops is killed by the time-out; the next call
-- closes it (Lua left that thread with hooks off, so its __close must not run).
local co
return {
  run = function()
    co = coroutine.create(function()
      local x <close> = setmetatable({}, { __close = function() while true do end end })
      while true do end
    end)
    coroutine.resume(co)
  end,
  run2 = function()
    local ok, err = coroutine.close(co)
    assert(ok == false, "close should report the coroutine's failure")
    local w = coroutine.wrap(function() local y <close> = setmetatable({}, { __close = function() end }) error("plain") end)
    assert(not pcall(w))
  end,
}
