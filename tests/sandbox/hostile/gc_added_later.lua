-- expect: ok
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
