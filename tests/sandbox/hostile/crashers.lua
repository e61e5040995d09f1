-- expect: ok
-- budget: 5000
-- Inputs that crashed or corrupted memory in Lua 5.4.x or LPeg (lua.org bug list, CVEs):
-- each must end in an error or a result, never a crash (run under ASan in the tests).
return { run = function()
  -- Lua-stack overflow when the C stack overflows while handling an error (5.4.4, CVE-2022-33099).
  local function loop() assert(pcall(loop)) end
  pcall(xpcall, loop, loop)
  -- singlevar with a constant _ENV (CVE-2022-28805).
  pcall(load, "local _ENV <const> = 10; x = 1; return y")
  pcall(load("local _ENV <const> = {}; local function f() return x end return f"))
  -- Deep recursion through C: __tostring, __index functions, coroutine.wrap, string.gsub callbacks.
  local o = setmetatable({}, { __tostring = function(self) return tostring(self) end })
  pcall(tostring, o)
  local i = setmetatable({}, { __index = function(t, k) return t[k] end })
  pcall(function() return i.x end)
  local function w() return coroutine.wrap(w)() end
  pcall(w)
  local function g(s) return (s:gsub(".", g)) end
  pcall(g, "ab")
  local function srt() local t = { 3, 2, 1 } table.sort(t, function(a, b) srt() return a < b end) end
  pcall(srt)
  -- Parser limits.
  pcall(load, string.rep("(", 100000) .. "1" .. string.rep(")", 100000))
  pcall(load, "return " .. string.rep("{", 100000))
  pcall(load, string.rep("local a ", 300))
  pcall(load, "return " .. string.rep("a..", 50000) .. "a")
  -- Errors inside <close> handlers while closing, in coroutines.
  local co = coroutine.wrap(function()
    local a <close> = setmetatable({}, { __close = function() error("c1") end })
    local b <close> = setmetatable({}, { __close = function() error("c2") end })
    error("body")
  end)
  pcall(co)
  -- Resuming oneself, the main thread, dead and running coroutines.
  local main = coroutine.running()
  pcall(coroutine.resume, main)
  local self
  self = coroutine.create(function() return coroutine.resume(self) end)
  coroutine.resume(self)
  coroutine.resume(self)
  pcall(coroutine.close, main)
  -- Formats near the limits.
  pcall(string.format, "%99.99f", -1e308)
  pcall(string.format, "%a", 1 / 0)
  pcall(string.format, "%099d", math.mininteger)
  pcall(string.format, "%q", 0 / 0)
  pcall(string.pack, "i17", 1)
  pcall(string.unpack, "!17i16", "x")
  pcall(string.unpack, ">s4", "\255\255\255\255")
  pcall(utf8.char, 0x7FFFFFFF, -1)
  pcall(utf8.codepoint, "\xF4\x90\x80\x80", 1, -1, true)
  pcall(utf8.offset, "abc", 1, 10)
  pcall(table.unpack, {}, math.maxinteger - 1, math.maxinteger)
  pcall(table.move, {}, math.mininteger, -1, 1)
  pcall(table.insert, {}, math.maxinteger, 1)
  pcall(string.byte, "abc", math.mininteger, math.maxinteger)
  pcall(string.sub, "abc", math.mininteger, math.maxinteger)
  pcall(string.rep, "x", math.maxinteger, "y")
  pcall(string.find, "abc", "b", math.mininteger)
  pcall(string.gmatch("abc", "()", math.maxinteger))
  pcall(select, math.mininteger, 1)
  pcall(tostring, setmetatable({}, { __name = {} }))
  pcall(math.random, math.mininteger, math.maxinteger)
  pcall(math.tointeger, "0x")
  pcall(os.date, "%Ez")
  pcall(os.date, string.rep("%c", 1000))
  pcall(os.time, { year = math.maxinteger, month = 1, day = 1 })
  pcall(load, "\27Lua")
  pcall(load, function() return "\27" end)
  -- LPeg: big counts, grammars with bad rules, back captures, deep nesting.
  local lpeg = require "lpeg"
  pcall(lpeg.P, { "a" })
  pcall(lpeg.P, { "a", a = lpeg.V"a" })
  pcall(lpeg.match, lpeg.Cb("nope"), "x")
  pcall(lpeg.B, lpeg.P(1)^1)
  pcall(lpeg.Carg, 0)
  pcall(lpeg.Carg, 1 << 40)
  pcall(lpeg.setmaxstack, -1)
  pcall(lpeg.setmaxstack, math.maxinteger)
  pcall(lpeg.match, lpeg.P(1), "abc", math.mininteger)
  local deep = lpeg.P"a"
  for _ = 1, 900 do deep = lpeg.C(deep) end
  pcall(lpeg.match, deep, "a")
  local nested = lpeg.P"x"
  for _ = 1, 12 do nested = #nested * -(-nested) end
  pcall(lpeg.match, nested, "x")
end }
