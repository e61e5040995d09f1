-- expect: timeout
-- table.insert/remove shifting a __len-faked range of 2^62 elements.
return { run = function()
  local t = setmetatable({}, { __len = function() return math.maxinteger - 1 end })
  pcall(table.insert, t, 1, "x")
  table.remove(t, 1)
end }
