-- expect: timeout
-- A repetition whose body scans to the end of the subject: quadratic, no grammar needed.
local lpeg = require "lpeg"
return { run = function()
  local P = lpeg.P
  local p = (1 - (P(1)^0 * "z"))^0
  local s = string.rep("a", 2e5)
  while true do p:match(s) end
end }
