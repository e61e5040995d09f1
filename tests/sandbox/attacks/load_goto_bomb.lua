-- Compile time: Lua's parser is quadratic in pending gotos (and in and/or
-- and elseif chains) and runs as one C call, where no hook runs.
-- `load(("do " .. ("goto l "):rep(32000) .. "::l:: end "):rep(4))` took
-- more than 1 s; --work charged load by source bytes only, so only the clock
-- (the last resort, which kills the agent) stopped a loop of them. Now the
-- text is scanned first (such shapes are refused at once) and fed to the
-- parser in pieces that are charged and check the deadline.
local agent = {}
function agent:initialize()
  local src = ("do " .. ("goto l "):rep(32000) .. "::l:: end "):rep(4)
  local f, e = load(src)
  print(e)
  while true do load(src) load("return " .. ("a or "):rep(4000) .. "a") end
end
return agent
