-- expect: timeout
-- budget: 100
-- needs: watchdog
-- later: may time out (when the hook stops run before the collector meets the chain, the
-- next call of this agent meets it instead)
-- Weak-key tables (__mode added after setmetatable, as an agent may), holding a
-- 100 000-link chain of keys alternating between two tables, inserted in reverse order, then
-- plenty of allocation. Lua's ephemeron convergence makes one collection quadratic: about 70 s
-- inside the collector, where no hook runs. Only the watchdog's last resort stops it: the call
-- is abandoned one budget past its deadline and the agent is killed (its memory freed),
-- at twice the budget (at budgets of 100 ms and more; 100 ms past the deadline below).
local N = 100000
local A, B = setmetatable({}, {}), setmetatable({}, {})
return { run = function()
  getmetatable(A).__mode = "k"
  getmetatable(B).__mode = "k"
  local keys = {}
  for i = 1, N do keys[i] = {} end
  for i = N - 1, 1, -1 do
    local t = (i % 2 == 1) and A or B
    t[keys[i]] = keys[i + 1]
  end
  _G.root = keys[1]
  keys = nil
  for i = 1, 300 do local x = {} for j = 1, 1000 do x[j] = {} end end
end }
