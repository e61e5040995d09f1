-- expect: ok
-- LPeg 1.0.2 computes tree sizes in int: P(-2^31) and p^n with a huge n overflow them and write
-- past the allocation (a segfault in stock LPeg). The sandbox must refuse these, not crash.
local lpeg = require "lpeg"
return { run = function()
  for _, n in ipairs{ -2147483648, 2147483647, math.mininteger, math.maxinteger, 2^40, 1 << 31, -(1 << 31) } do
    assert(not pcall(lpeg.P, n), "P(" .. tostring(n) .. ")")
    assert(not pcall(function() return lpeg.P"ab" * n end))
  end
  local p = lpeg.P"ab"
  for _, n in ipairs{ 1431655764, 2147483647, -2147483648, 1 << 40, 1 << 20 } do
    assert(not pcall(function() return p^n end), "p^" .. n)
  end
  local big = lpeg.P(string.rep("x", 100000))
  assert(not pcall(function() return big^1000 end))
  assert(lpeg.match(lpeg.P"ab"^3, "ababab") == 7)
  assert(lpeg.match(lpeg.P(3), "abc") == 4 and lpeg.match(lpeg.P(-1), "") == 1)
  assert(lpeg.match(lpeg.P(1)^-2 * -1, "ab") == 3)
end }
