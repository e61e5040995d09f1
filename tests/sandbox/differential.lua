-- Runs the same string and table library calls in a stock Lua and in the
-- sandbox; sandbox_basic compares the two transcripts line by line. Errors
-- are recorded as "ERR" (messages may differ in wording).
local out = {}
local function ser(ok, ...)
  if not ok then return "ERR" end
  local t = {}
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    t[#t + 1] = type(v) == "table" and "table" or type(v) == "string" and string.format("%q", v):gsub("\n", "n")
      or (math.type(v) or type(v)) .. ":" .. tostring(v)
  end
  return table.concat(t, ",")
end
local function rec(label, ...) out[#out + 1] = label .. " => " .. ser(pcall(...)) end

local fixed = {
  { "hello world", "o" }, { "hello world", "l+" }, { "hello world", "(h)(e)" }, { "hello", "()ll()" },
  { "  key = value ", "(%w+)%s*=%s*(%w+)" }, { "THE (quick) fox", "%((%a+)%)" }, { "f(a(b)c)d", "%b()" },
  { "THE (quick) fox", "%f[%a]%a+" }, { "abcabc", "(abc)%1" }, { "aaa", "a-b" }, { "aaa", "^a-$" },
  { "", "" }, { "", "a*" }, { "abc", "" }, { "abc", "$" }, { "a.b", "." }, { "a.b", "%." },
  { "x=1, y=2", "(%w+)=(%w+)" }, { "[]]", "[]]" }, { "a-z", "[a%-z]+" }, { "0x1F", "%x+" },
  { "tab\there", "%s" }, { "UPPER lower", "%u+" }, { "UPPER lower", "%L+" }, { "a1b2", "%d" },
  { "a,b,,c", "([^,]*)" }, { "hello", "(l)(l)" }, { "hello", "l?" }, { "hello", "el?l" },
  { "abc", "[a-" }, { "abc", "%" }, { "abc", "(()" }, { "abc", "%1" }, { "abc", "%b" }, { "abc", "%fa" },
  { "abc", "a)" }, { "\0a\0", "%z" }, { "a\0b", "[\0]" }, { "a\0b", "\0" }, { "ab", "[%a-]+" },
  { "Agent[01] Agent[02]", "Agent%[(%d+)%]" }, { "COMINGOUT Agent[01] SEER", "^(%u+)%s+(%S+)%s+(%u+)$" },
}
for i, c in ipairs(fixed) do
  local s, p = c[1], c[2]
  rec("find " .. i, string.find, s, p)
  rec("find3 " .. i, string.find, s, p, 2)
  rec("findneg " .. i, string.find, s, p, -2)
  rec("findplain " .. i, string.find, s, p, 1, true)
  rec("match " .. i, string.match, s, p)
  rec("gsub " .. i, string.gsub, s, p, "<%0>")
  rec("gsub1 " .. i, string.gsub, s, p, "%1", 1)
  rec("gsubf " .. i, string.gsub, s, p, function(a, b) return b or a end)
  rec("gsubt " .. i, string.gsub, s, p, { a = "A", l = false })
  rec("gmatch " .. i, function()
    local t = {}
    for a, b in string.gmatch(s, p) do t[#t + 1] = tostring(a) .. "/" .. tostring(b) if #t > 50 then break end end
    return table.concat(t, "|")
  end)
end
rec("gmatch init", function()
  local t = {} for w in ("one two three"):gmatch("%a+", 5) do t[#t + 1] = w end return table.concat(t, ",") end)
rec("gsub %%", string.gsub, "abc", "b", "%%")
rec("gsub bad %", string.gsub, "abc", "b", "%x")
rec("gsub bad repl", string.gsub, "abc", "b", {b = {}})
rec("gsub anchor", string.gsub, "aaa", "^a", "b")
rec("gsub max", string.gsub, "aaa", "a", "b", 2)
rec("gsub empty", string.gsub, "abc", "", "-")
rec("gsub pos", string.gsub, "abc", "()", "%1")

-- Random patterns over a small alphabet (a fixed LCG, so both runs agree).
local seed = 12345
local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648 return seed % n + 1 end
local atoms = { "a", "b", ".", "%a", "[ab]", "[^a]", "(", ")", "()", "%1", "%b()", "%f[a]", "x", "%(" }
local quants = { "", "", "*", "+", "-", "?" }
local chars = { "a", "b", "(", ")", "x", " " }
for i = 1, 400 do
  local p = {}
  if rnd(5) == 1 then p[1] = "^" end
  for j = 1, rnd(5) do p[#p + 1] = atoms[rnd(#atoms)] .. quants[rnd(#quants)] end
  if rnd(6) == 1 then p[#p + 1] = "$" end
  local s = {}
  for j = 1, rnd(12) - 1 do s[#s + 1] = chars[rnd(#chars)] end
  p, s = table.concat(p), table.concat(s)
  rec("rfind " .. i .. " " .. p .. " " .. s, string.find, s, p)
  rec("rgsub " .. i, string.gsub, s, p, "[%0]")
end

-- Table functions.
local function show(t, n) local r = {} for i = 1, n do r[i] = tostring(t[i]) end return table.concat(r, " ") end
rec("insert", function() local t = {1, 2, 3} table.insert(t, 2, "x") table.insert(t, "y") return show(t, 6) end)
rec("insert oob", table.insert, {1, 2}, 5, "x")
rec("insert args", table.insert, {1}, 1, 2, 3)
rec("remove", function() local t = {1, 2, 3, 4} local a = table.remove(t, 1) local b = table.remove(t) return a, b, show(t, 4) end)
rec("remove empty", function() local t = {} return table.remove(t), #t end)
rec("remove n+1", function() local t = {1, 2} return table.remove(t, 3), #t end)
rec("remove oob", table.remove, {1, 2}, 5)
rec("move", function() local t = {1, 2, 3, 4, 5} table.move(t, 1, 3, 3) return show(t, 6) end)
rec("move back", function() local t = {1, 2, 3, 4, 5} table.move(t, 2, 5, 1) return show(t, 6) end)
rec("move other", function() local a, b = {1, 2, 3}, {} local r = table.move(a, 1, 3, 2, b) return r == b, show(b, 4) end)
rec("concat", table.concat, {1, "a", 2.5}, ", ")
rec("concat range", table.concat, {"a", "b", "c", "d"}, "-", 2, 3)
rec("concat empty", table.concat, {}, "x")
rec("concat bad", table.concat, {1, {}, 3})
rec("sort", function() local t = {5, 3, 8, 1, 9, 2, 7} table.sort(t) return show(t, 7) end)
rec("sort desc", function() local t = {5, 3, 8, 1, 9, 2, 7} table.sort(t, function(a, b) return a > b end) return show(t, 7) end)
rec("sort strings", function() local t = {"pear", "apple", "fig", "banana"} table.sort(t) return show(t, 4) end)
rec("sort mixed", table.sort, {1, "a", 2})
rec("sort big", function()
  local t = {} for i = 1, 2000 do t[i] = (i * 7919) % 2003 end table.sort(t)
  for i = 2, #t do if t[i - 1] > t[i] then return false end end return true end)
rec("sort dups", function()
  local t = {} for i = 1, 500 do t[i] = (i * 37) % 11 end table.sort(t) return show(t, 500) end)
rec("sort equal", function() local t = {} for i = 1, 100 do t[i] = 5 end table.sort(t) return show(t, 100) end)
rec("sort desc dups", function()
  local t = {} for i = 1, 300 do t[i] = (i * 13) % 7 end table.sort(t, function(a, b) return a > b end) return show(t, 300) end)
for n = 1, 12 do
  rec("sort n" .. n, function() local t = {} for i = 1, n do t[i] = (i * 5) % (n + 1) end table.sort(t) return show(t, n) end)
end
rec("rep", string.rep, "ab", 3, ",")
rec("rep0", string.rep, "ab", 0)
rec("rep1", string.rep, "ab", 1, ",")
rec("rep sep only", string.rep, "", 3, "-")
rec("pack", function() return #string.pack("i4c3", 7, "abc") end)
-- os.date and os.time (the sandbox's own, for the time-zone lock) and
-- table.unpack (its own, charged per element).
rec("date utc", os.date, "!%Y-%m-%d %H:%M:%S %j %a %b %p", 86400 * 365 + 3723)
rec("date *t", function()
  local t = os.date("!*t", 1000000000)
  return t.year, t.month, t.day, t.hour, t.min, t.sec, t.yday, t.wday, t.isdst
end)
rec("date local *t", function() local t = os.date("*t", 1000000000) return t.year, t.yday end)
rec("date E O", os.date, "!%Ey %OS %Ec", 0)
rec("date bad conversion", os.date, "%Q")
rec("date cut conversion", os.date, "%E")
rec("date percent", os.date, "!100%% %%d", 0)
rec("date no time", function() return type(os.date()) end)
rec("time table", function()
  local t = { year = 2020, month = 1, day = 32, hour = 0 }
  local v = os.time(t)
  return math.type(v), t.month, t.day, t.yday, t.wday, t.hour, t.min
end)
rec("time missing", os.time, { year = 2020 })
rec("time not integer", os.time, { year = 2020, month = "x", day = 1 })
rec("time out of bound", os.time, { year = 2020, month = 1, day = 2 ^ 40 })
rec("time meta", function()
  local t = setmetatable({}, { __index = function(_, k) return ({ year = 2001, month = 2, day = 3 })[k] end })
  return os.time(t) == os.time({ year = 2001, month = 2, day = 3 })
end)
rec("time now", function() return math.type(os.time()) end)
rec("unpack", table.unpack, { 1, 2, 3 }, 2)
rec("unpack all", table.unpack, { 1, 2, nil, 4 }, 1, 4)
rec("unpack meta", table.unpack, setmetatable({}, { __index = function(_, k) return k * 2 end }), 1, 5)
rec("unpack len", table.unpack, setmetatable({}, { __len = function() return 3 end, __index = function(_, k) return k end }))
rec("unpack empty", table.unpack, {}, 3, 1)
rec("unpack too many", table.unpack, {}, 1, 1e8)
rec("unpack bad", table.unpack, {}, "x")
-- string.format: the sandbox feeds the stock function one conversion at a
-- time and writes %q of strings itself.
local fmts = {
  { "%d %s %q", 5, "a\nb", "x\0001y\"z\\" }, { "%5.2f|%-5d|%x", 3.14159, 42, 255 }, { "100%%" }, { "%q", 1 / 3 },
  { "%q", math.mininteger }, { "%q", "\r\t\0009\127\0" }, { "%10s|", "ab" }, { "%c%c", 65, 66 }, { "%a", 1.5 },
  { "%i", 3 }, { "%.3q", "x" }, { "%y", 1 }, { "%d" }, { "%s %s", 1 }, { "%", 1 }, { "%5", 1 }, { "%q", {} },
  { "%s", setmetatable({}, { __tostring = function() return "T" end }) }, { "%-+ #0d", 5 }, { "%099d", 1 },
  { "%100d", 1 }, { "%q", true }, { "%.14g", 0.1 }, { "x%%y%sz", "!" }, { "%d", "10" }, { "%d", 3.5 },
  { "%x", "z" }, { "%s", nil }, { "%.3p", {} }, { "%p|%-8p|%8p", 1, nil, true }, { "%s", 2.5 }, { "%q", ("\1"):rep(3) .. "2" }, { ("%d,"):rep(300), table.unpack((function()
    local t = {} for i = 1, 300 do t[i] = i end return t end)()) },
}
for i, c in ipairs(fmts) do rec("format " .. i, string.format, table.unpack(c, 1, #c)) end
rec("format q big", function() return #string.format("%q", ("a\0b\n"):rep(40000)) end)

-- weak tables are ordinary Lua (a cache keyed by tables)
rec("weak keys", function()
  local cache = setmetatable({}, { __mode = "k" })
  local k = {}
  cache[k] = 5
  local n = 0
  for _ in pairs(cache) do n = n + 1 end
  return cache[k], getmetatable(cache).__mode, n
end)
rec("weak values", function()
  local t = setmetatable({}, { __mode = "kv" })
  t.x = "s"
  return t.x
end)
return table.concat(out, "\n")
