-- Stack overflow inside a table.sort comparator (called from the
-- sandbox's C sort), caught and retried forever.
local agent = {}
local function f() return 1 + f() end
function agent:initialize()
  local t = {}
  for i = 1, 100 do t[i] = -i end
  while true do pcall(table.sort, t, function() return f() end) end
end
return agent
