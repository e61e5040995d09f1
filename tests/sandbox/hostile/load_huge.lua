-- expect: error
-- budget: 1000
-- load of a huge source, by string or by reader pieces, is refused.
return { run = function()
  local big = string.rep("x=1 ", 1e6)
  local f, e = load(big)
  assert(not f)
  local n = 0
  f, e = load(function() n = n + 1 if n < 1000 then return string.rep(" ", 4096) end end)
  assert(not f)
  error(e)
end }
