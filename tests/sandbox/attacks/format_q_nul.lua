-- string.format("%q") of 15 MB of NUL bytes: stock Lua's addquoted calls
-- snprintf("\\%d") once per byte, so this single unhookable C call runs
-- ~600 ms (it fits the 64 MB cap: result 30 MB). The watchdog hook cannot
-- fire inside it; only the last resort stops it, at 2x budget + 100 ms
-- (budget 20: 140 ms = 7x; budget 100: 301 ms = 3x), and the agent is
-- killed for the rest of the game (every later call fails at once).
-- docs/sandbox.md calls string.format "linear in its input, which the memory
-- cap bounds" and the overrun of such calls "tens of ms": here it is ~6x the
-- default budget. With --budget 1000 it completes (memory fault at 606 ms).
local agent = {}
function agent:initialize()
  local s = ("\0"):rep(15000000)
  for _ = 1, 1e9 do local u = string.format("%q", s) end
end
return agent
