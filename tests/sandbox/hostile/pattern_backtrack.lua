-- expect: timeout
-- Catastrophic pattern backtracking: seconds to hours inside one C call in stock Lua.
return { run = function()
  string.find(string.rep("a", 150), ".-.-.-.-b")
  string.match(string.rep("a", 5000), "(.-)%1(.-)%2x")
end }
