-- expect: timeout
-- An LPeg grammar with exponential backtracking: rule i tries rule i-1 twice.
local lpeg = require "lpeg"
return { run = function()
  local g = { "S40", S0 = lpeg.P"a" }
  for i = 1, 40 do
    g["S" .. i] = lpeg.V("S" .. (i - 1)) * "x" + lpeg.V("S" .. (i - 1)) * "y"
  end
  lpeg.match(g, "a")
  lpeg.match(lpeg.P"b" * g, "ba")
end }
