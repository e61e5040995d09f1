-- Stack overflow reached through a metamethod (an __index running deep Lua
-- recursion), caught and retried forever (hostile/stack_overflow_metamethod.lua
-- has more).
local agent = {}
local function f() return 1 + f() end
local deep = setmetatable({}, { __index = function() return f() end })
function agent:initialize() while true do pcall(function() return deep.x end) end end
return agent
