-- expect: timeout
-- table.sort of 2^31-2 (faked) elements with a C comparator that never calls Lua.
return { run = function()
  local t = setmetatable({}, { __len = function() return 2^31 - 2 end })
  table.sort(t, rawequal)
end }
