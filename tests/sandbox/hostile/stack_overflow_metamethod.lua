-- expect: timeout, timeout, timeout
-- memory-mib: 64
-- no-kill
-- Stack overflow reached through metamethods: an __index whose Lua code
-- overflows the Lua stack, an __add that recurses through the C boundary
-- ("C stack overflow", then "error in error handling" past it), and an
-- __index that indexes itself, each caught by pcall and retried.
local function f() return 1 + f() end
local deep = setmetatable({}, { __index = function() return f() end })
local add = setmetatable({}, {})
getmetatable(add).__add = function(a, b) return a + b end
local self_index = setmetatable({}, {})
getmetatable(self_index).__index = function(t, k) return t[k] end
return {
  run = function() while true do pcall(function() return deep.x end) end end,
  run2 = function() while true do pcall(function() return add + 1 end) end end,
  run3 = function() while true do pcall(function() return self_index.x end) end end,
}
