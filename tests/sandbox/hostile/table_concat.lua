-- expect: timeout
-- table.concat over a huge explicit range served by an __index function.
return { run = function()
  local t = setmetatable({}, { __index = function(t, k) return "" end })
  table.concat(t, "", 1, 1 << 40)
end }
