-- expect: timeout
-- A to-be-closed variable whose __close loops, closed while the time-out unwinds.
return { run = function()
  local x <close> = setmetatable({}, { __close = function() while true do end end })
  while true do end
end }
