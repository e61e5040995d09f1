-- expect: timeout, timeout
-- memory-mib: 64
-- no-kill
-- Stack overflow inside a to-be-closed variable's __close handler: run
-- leaves its scope normally (the handler overflows, pcall catches it,
-- repeat); in run2 the handler overflows while an error (itself a stack
-- overflow) unwinds through it.
local function f() return 1 + f() end
local mt = { __close = function() return f() end }
return {
  run = function()
    while true do
      pcall(function() local x <close> = setmetatable({}, mt) end)
    end
  end,
  run2 = function()
    while true do
      pcall(function() local x <close> = setmetatable({}, mt); return f() end)
    end
  end,
}
