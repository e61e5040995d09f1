-- expect: ok
-- Capabilities: none of these may be reachable.
return { run = function()
  assert(io == nil and debug == nil and dofile == nil and loadfile == nil)
  assert(os.execute == nil and os.remove == nil and os.getenv == nil and os.exit == nil)
  assert(type(os.clock()) == "number" and type(os.time()) == "number")
  assert(os.date("!%Y", 0) == "1970" and not pcall(os.date, string.rep("%c", 2000)))
  assert(string.dump == nil and package.loadlib == nil and package.cpath == nil and package.searchpath == nil)
  assert(not pcall(require, "io") and not pcall(require, "debug") and not pcall(require, "os.x"))
  assert(not pcall(require, "../../etc/passwd"))
  assert(require("lpeg").match(require("lpeg").P"a", "a") == 2)
  assert(getmetatable("") == false and getmetatable(require("lpeg").P(1)) == false)
  assert(not load("\27Lua\84\0", "x", "b") and not load("\27Lua\84\0"))
  assert(not pcall(collectgarbage) and not pcall(collectgarbage, "stop"))
  assert(type(collectgarbage("count")) == "number")
  assert(not pcall(setmetatable, "", {}))
  local t = setmetatable({}, { __metatable = "locked" })
  assert(not pcall(setmetatable, t, {}))
end }
