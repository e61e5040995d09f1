-- Stack overflow inside a <close> handler when the scope is left, caught by
-- pcall and retried forever (hostile/stack_overflow_close.lua has more).
local agent = {}
local function f() return 1 + f() end
local mt = { __close = function() return f() end }
function agent:initialize()
  while true do pcall(function() local x <close> = setmetatable({}, mt) end) end
end
return agent
