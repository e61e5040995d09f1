-- expect: memory
-- budget: 2000
-- A huge LPeg pattern: memory cap, not a crash.
local lpeg = require "lpeg"
return { run = function()
  local p = lpeg.P"a"
  while true do p = p * p end
end }
