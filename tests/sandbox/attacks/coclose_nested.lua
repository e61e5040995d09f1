-- Lua 5.4.4 bug "C-stack overflow with deep nesting of coroutine.close"
-- (lua.org/bugs.html): 1000 coroutines, each with a pending <close> whose
-- handler closes the previous one. coroutine.close -> lua_resetthread ->
-- __close -> coroutine.close ... does not count C calls in 5.4.4, and the
-- sandbox's co_close (runtime/sandbox.c) adds no depth limit of its own.
-- RESULT (in process, default --budget 100, 12000+ links): the HOST segfaults
-- (exit 139, SIGSEGV on C-stack exhaustion, ~30 ms): every game dies, no log.
-- 8000 links fit in the 8 MB C stack. With --isolate only the child dies
-- (fault "lost", signal 11) and the game finishes with a legal log.
local agent = {}
function agent:initialize()
  local coro = false
  for i = 1, 20000 do
    local previous = coro
    coro = coroutine.create(function()
      local cc <close> = setmetatable({}, {__close = function()
        if previous then coroutine.close(previous) end
      end})
      coroutine.yield()
    end)
    coroutine.resume(coro)
  end
  print(coroutine.close(coro))
end
return agent
