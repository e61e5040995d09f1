-- expect: timeout, timeout, timeout
-- memory-mib: 64
-- no-kill
-- Unbounded recursion overflows Lua's stack (a million slots, some 300 000
-- frames), pcall catches "stack overflow", and the loop repeats it. With the
-- watchdog, its signal handler's lua_sethook walked all those frames on
-- every 5 ms signal and took longer than that: the thread never ran again
-- (the host hung for good, the last resort too). run2 overflows through a
-- frame with more registers, and unwinds through a pcall at every level.
-- run3 nests 190 pcalls on top of a 300 000-frame stack: Lua walks the
-- whole stack once per pcall that the time-out unwinds through (seconds once
-- the frames are scattered in memory), so nesting over a deep stack fails.
local function f() return 1 + f() end
local function g(n)
  local a, b, c, d = n, n, n, n
  if n % 1000 == 0 then pcall(g, n + 1) end
  return a + b + c + d + g(n + 1)
end
return {
  run = function() while true do pcall(f) end end,
  run2 = function() while true do pcall(g, 1) end end,
  run3 = function()
    local levels = 0
    local function nest()
      levels = levels + 1
      if levels < 190 then return pcall(nest) end
      while true do end
    end
    local function deep(n) if n == 0 then return nest() end return 1 + deep(n - 1) end
    while true do levels = 0; pcall(deep, 300000) end
  end,
}
