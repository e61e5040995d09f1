-- expect: error, timeout, ok
-- LPeg grammars whose rules each reference the next one twice: LPeg's own analyses of such a
-- grammar take 2^n steps inside one C call (before any match), so the sandbox refuses them;
-- a smaller one is accepted and its exponential matching is stopped by the budget; ordinary
-- recursive grammars still work.
local lpeg = require "lpeg"
local function chain(n)
  local g = { "S" .. n, S0 = lpeg.P"a" }
  for i = 1, n do
    g["S" .. i] = lpeg.V("S" .. (i - 1)) * "x" + lpeg.V("S" .. (i - 1)) * "y"
  end
  return g
end
return {
  run = function() lpeg.P(chain(40)) end,
  run2 = function()
    local p = lpeg.P(chain(16)) -- accepted: 2^16 reference paths
    while true do lpeg.match(p, "a") end
  end,
  run3 = function()
    local V, P, R, S = lpeg.V, lpeg.P, lpeg.R, lpeg.S
    local sp = S" \t"^0
    local calc = P{ "Exp",
      Exp = V"Term" * (sp * S"+-" * V"Term")^0,
      Term = V"Factor" * (sp * S"*/" * V"Factor")^0,
      Factor = sp * (R"09"^1 + "(" * V"Exp" * sp * ")"),
    }
    assert(calc:match("1 + 2 * (3 - 4) / 5") == 20)
    local json = { "Value",
      Value = lpeg.V"Object" + lpeg.V"Array" + lpeg.V"Number",
      Number = R"09"^1,
      Array = "[" * (V"Value" * ("," * V"Value")^0)^-1 * "]",
      Object = "{" * (V"Pair" * ("," * V"Pair")^0)^-1 * "}",
      Pair = '"' * R"az"^0 * '":' * V"Value",
    }
    assert(lpeg.match(json, '{"a":[1,2,{"b":[]}],"c":3}') == 27)
  end,
}
