-- expect: timeout
-- Metamethods invoked from C: __tostring (tostring, print, format), __index from table.concat.
return { run = function()
  local o = setmetatable({}, { __tostring = function() while true do end end })
  pcall(tostring, o)
  pcall(print, o)
  pcall(string.format, "%s", o)
end }
