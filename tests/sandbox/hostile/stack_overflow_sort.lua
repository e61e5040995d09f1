-- expect: timeout
-- memory-mib: 64
-- no-kill
-- Stack overflow inside a table.sort comparator (called from the sandbox's
-- own C sort), caught by pcall and retried.
local function f() return 1 + f() end
return {
  run = function()
    local t = {}
    for i = 1, 100 do t[i] = -i end
    while true do pcall(table.sort, t, function(a, b) return f() end) end
  end,
}
