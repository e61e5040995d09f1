-- expect: timeout, timeout
-- memory-mib: 64
-- no-kill
-- Stack overflow inside coroutines: a fresh coroutine that overflows,
-- resumed in a retry loop (each has its own Lua stack to grow), and a
-- pcall-and-retry loop running inside a wrapped coroutine.
local function f() return 1 + f() end
return {
  run = function()
    while true do coroutine.resume(coroutine.create(f)) end
  end,
  run2 = function()
    coroutine.wrap(function() while true do pcall(f) end end)()
  end,
}
