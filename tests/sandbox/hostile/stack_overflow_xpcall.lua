-- expect: timeout, timeout, timeout
-- memory-mib: 64
-- no-kill
-- Stack overflow and xpcall's message handler: the handler overflows too
-- (Lua has 200 spare slots for it, then "error in error handling"), the
-- handler loops while the stack is at its limit, and the handler recurses
-- to within a few slots of the limit and then loops (a hook there cannot
-- get the 20 free slots Lua wants to call it: "error in error handling").
local function f() return 1 + f() end
local function near(n) if n > 0 then return near(n - 1) + 1 end while true do end end
return {
  run = function() while true do xpcall(f, f) end end,
  run2 = function() while true do xpcall(f, function(m) while true do end end) end end,
  run3 = function()
    local n = 0
    while true do
      xpcall(f, function(m) return near(n) end)
      n = (n + 1) % 120
    end
  end,
}
