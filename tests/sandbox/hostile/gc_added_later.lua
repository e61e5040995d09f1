-- expect: ok
-- budget: 500
-- (its garbage takes 7 ms of CPU, but some 50 ms under ASan with the count
-- hook of the fallback and work modes: more than the default 50 ms budget)
-- __gc added to the metatable after setmetatable: Lua never marks the object, so the finalizer
-- must never run (the call ends normally despite plenty of garbage collection).
return { run = function()
  local mt = {}
  for i = 1, 100 do setmetatable({}, mt) end
  mt.__gc = function() while true do end end
  for i = 1, 20000 do local t = { i, i } end
  -- weak keys are ordinary Lua: allowed, and collected as usual
  local cache = setmetatable({}, { __mode = "k" })
  cache[{}] = 1
  for i = 1, 20000 do local t = { i, i } end
end }
