-- expect: timeout
-- Back captures that each search the whole capture list: quadratic capture evaluation.
local lpeg = require "lpeg"
return { run = function()
  local p = lpeg.Cg(lpeg.C"a", "g") * (lpeg.C(1) * lpeg.Cb"g")^0
  local s = "a" .. string.rep("b", 4e4)
  while true do lpeg.match(p, s) end
end }
