-- expect: timeout
-- Each VM instruction copies megabytes (concatenation), so instructions are expensive.
return { run = function()
  local a = string.rep("x", 4e6)
  while true do local b = a .. "y" end
end }
