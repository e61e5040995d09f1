-- expect: timeout
-- gsub over megabytes with a C replacement function (no Lua code runs per match).
return { run = function()
  local s = string.rep("a", 1e6)
  while true do s:gsub(".", string.upper) end
end }
