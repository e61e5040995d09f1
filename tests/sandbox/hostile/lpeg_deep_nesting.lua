-- expect: ok
-- budget: 3000
-- LPeg's tree algorithms recurse on nested patterns: 30 000 nested predicates or captures
-- overflow the C stack in stock LPeg (a segfault). The sandbox refuses deep nesting; long
-- sequences and choices (a keyword list built in a loop) stay fine.
local lpeg = require "lpeg"
return { run = function()
  for _, wrap in ipairs{
    function(p) return -p * "a" end, function(p) return #p end, function(p) return lpeg.C(p) end,
    function(p) return p / 1 end, function(p) return lpeg.Ct(p) end, function(p) return p - "x" end,
  } do
    local ok = pcall(function()
      local p = lpeg.P"a"
      for i = 1, 30000 do p = wrap(p) end
      lpeg.match(p, "a")
    end)
    assert(not ok)
  end
  local kw = lpeg.P(false)
  for i = 1, 1500 do kw = kw + lpeg.P("kw" .. i .. ";") end
  assert(lpeg.match(kw, "kw1499;") == 8)
  local seq = lpeg.P""
  for i = 1, 1500 do seq = seq * lpeg.S"ab" end
  assert(lpeg.match(seq, string.rep("ab", 750)) == 1501)
  local nest = lpeg.P"a"
  for i = 1, 100 do nest = lpeg.C(nest) end
  assert(select("#", lpeg.match(nest, "a")) == 100)
end }
