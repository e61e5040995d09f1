-- expect: ok
-- budget: 2000
-- Weak-key tables made by adding __mode after setmetatable (which refuses it), holding a
-- 100 000-link chain of keys alternating between tables, then plenty of collection. Ephemeron
-- tables can in theory make a collection quadratic (no hook runs inside the collector); this
-- case documents that such chains stay cheap in Lua 5.4.4 (the call must end well in budget).
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
