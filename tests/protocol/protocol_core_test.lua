-- Run by test_protocol_lua (C) with the real C core preloaded: checks the
-- Lua library on top of it. Fails by raising; returns the number of checks.
local P = require "aiwolf.protocol"
local passed = 0

local function fmt(v)
  if type(v) ~= "table" then return string.format("%q", v) end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do
    local val = v[k]
    if val == nil then val = v[tonumber(k)] end
    parts[#parts + 1] = k .. "=" .. fmt(val)
  end
  return "{" .. table.concat(parts, ",") .. "}"
end

local function eq(a, b, what)
  if fmt(a) ~= fmt(b) then
    error(string.format("%s:\n  got      %s\n  expected %s", what or "mismatch", fmt(a), fmt(b)), 2)
  end
  passed = passed + 1
end

local function ok(c, what)
  if not c then error(what or "check failed", 2) end
  passed = passed + 1
end

ok(P.has_parser, "C core is loaded")
local r, err

-- The table shape aw_protocol_push gives.
local t = P.parse("Agent[01] BECAUSE (DAY 1 (DIVINED Agent[03] WEREWOLF)) (AND (VOTE Agent[03]) (REQUEST ANY (VOTE Agent[03])))")
eq(t, {verb = "BECAUSE", subject = 1, args = {
  {verb = "DAY", day = 1, args = {{verb = "DIVINED", target = 3, species = "WEREWOLF"}}},
  {verb = "AND", args = {{verb = "VOTE", target = 3},
    {verb = "REQUEST", target = "ANY", args = {{verb = "VOTE", target = 3}}}}}}}, "push shape")
eq(P.parse("AGREE TALK day1 ID:3"), {verb = "AGREE", talk = {type = "TALK", day = 1, id = 3}}, "agree shape")
eq(P.parse("Over"), {verb = "OVER"}, "over")
eq(P.parse("SKIP", "lenient"), {verb = "SKIP"}, "seed SKIP in lenient")
eq(P.parse_lenient("SKIP"), {verb = "SKIP"}, "P.parse_lenient")
eq(P.parse("ESTIMATE ANY ANY"), {verb = "ESTIMATE", target = "ANY", role = "ANY"}, "ANY role")
eq(P.parse("ANY VOTE Agent[00]"), {verb = "VOTE", subject = "ANY", target = "ANY"}, "Agent[00] is ANY")
eq(P.parse("Agent1 COMINGOUT Agent1 SEER", "lenient"), {verb = "COMINGOUT", subject = 1, target = 1, role = "SEER"}, "seed agent")

-- Strict by default, as games validate under the default preset and as
-- `aiwolf protocol` checks without --lenient.
r, err = P.parse("SKIP")
ok(r == nil and err:match("^at byte 0: expected 'Over' or 'Skip'"), "P.parse is strict by default: " .. tostring(err))
r, err = P.parse("Agent1 COMINGOUT Agent1 SEER")
ok(r == nil and err:match("^at byte 0:"), "strict by default rejects Agent1: " .. tostring(err))
ok(P.validate("vote Agent[01]") == nil, "P.validate is strict by default")
ok(P.validate("vote Agent[01]", "lenient") == true, "P.validate lenient")
ok(P.normalize("vote Agent1") == nil, "P.normalize is strict by default")
ok(P.normalize("vote Agent1", "lenient") == "VOTE Agent[01]", "P.normalize lenient")
ok(not pcall(P.parse_lenient, 42), "parse_lenient(42) raises")
ok(tostring(P.parse("VOTE Agent[1]")) == "VOTE Agent[01]", "tostring on parsed tree")

-- Failures: nil plus a message with the byte offset; misuse raises.
r, err = P.parse("VOTE Agent1", "strict")
ok(r == nil and err:match("^at byte 5:"), "strict rejects Agent1: " .. tostring(err))
r, err = P.parse("VOTE Agent[01]) junk")
ok(r == nil and err:match("at byte %d+"), "junk rejected: " .. tostring(err))
ok(P.validate("Over") == true, "validate")
ok(P.validate("OVER", "strict") == nil, "strict rejects OVER")
ok(P.validate("OVER", "off") == true, "off accepts")
ok(P.validate("a\1b", "off") == nil, "off rejects control bytes")
ok(P.normalize("REQUEST Agent[02] (Agent[02] VOTE Agent[01])") == "REQUEST Agent[02] (VOTE Agent[01])", "normalize")
ok(not pcall(P.parse, 42), "parse(42) raises")
ok(not pcall(P.parse, "Over", "bogus"), "bad mode raises")
ok(not pcall(P.vote, 0), "vote(0) raises")
ok(not pcall(P.vote, "3"), "vote('3') raises")
ok(not pcall(P.comingout, 1, "KING"), "bad role raises")
ok(not pcall(P.because, P.vote(1)), "BECAUSE with one operand raises")

-- Builders print the canonical text.
local me = 2
local cases = {
  {P.vote(3), "VOTE Agent[03]"},
  {P.comingout(me, "SEER"), "COMINGOUT Agent[02] SEER"},
  {P.request(P.ANY, P.vote(3)), "REQUEST ANY (VOTE Agent[03])"},
  {P.because(P.day(1, P.by(2, P.divined(3, "WEREWOLF"))), P.vote(3)),
    "BECAUSE (DAY 1 (Agent[02] DIVINED Agent[03] WEREWOLF)) (VOTE Agent[03])"},
  {P.over(), "Over"}, {P.skip(), "Skip"},
  {P.agree("TALK", 1, 3), "AGREE TALK day1 ID:3"},
  {P.disagree("WHISPER", 2, 0), "DISAGREE WHISPER day2 ID:0"},
  {P.by(1, P.estimate(2, "WEREWOLF")), "Agent[01] ESTIMATE Agent[02] WEREWOLF"},
  {P.inquire(1, P.voted(P.ANY)), "INQUIRE Agent[01] (VOTED ANY)"},
  {P.request(2, P.by(2, P.guard(3))), "REQUEST Agent[02] (GUARD Agent[03])"},
  {P.request(2, P.by(4, P.guard(3))), "REQUEST Agent[02] (Agent[04] GUARD Agent[03])"},
  {P.by(5, P.day(1, P.by(5, P.identified(1, "HUMAN")))), "Agent[05] DAY 1 (IDENTIFIED Agent[01] HUMAN)"},
  {P.not_(P.attack(4)), "NOT (ATTACK Agent[04])"},
  {P["and"](P.vote(1), P.vote(2), P.vote(3)), "AND (VOTE Agent[01]) (VOTE Agent[02]) (VOTE Agent[03])"},
  {P["or"](P.guarded(1), P.attacked(2)), "OR (GUARDED Agent[01]) (ATTACKED Agent[02])"},
  {P.xor(P.divination(1), P.divination(2)), "XOR (DIVINATION Agent[01]) (DIVINATION Agent[02])"},
  {P.vote(12), "VOTE Agent[12]"},
}
for _, c in ipairs(cases) do
  eq(tostring(c[1]), c[2], "print")
  eq(P.print(c[1]), c[2], "P.print")
  local back = P.parse(c[2], "strict")
  ok(back ~= nil, "builder text is strictly valid: " .. c[2])
  eq(tostring(back), c[2], "reprint")
end

-- Describe: the Lua and C versions say the same.
local texts = {"Agent[01] DIVINED Agent[03] WEREWOLF", "COMINGOUT Agent[02] SEER", "VOTE ANY",
  "REQUEST ANY (VOTE Agent[03])", "INQUIRE Agent[01] (VOTED ANY)", "Over", "Skip",
  "Agent[02] BECAUSE (DAY 1 (Agent[01] VOTE Agent[02])) (VOTE Agent[01])",
  "AND (ESTIMATE Agent[01] WEREWOLF) (ESTIMATE Agent[02] POSSESSED)", "OR (VOTE Agent[01]) (VOTE Agent[02])",
  "XOR (GUARD Agent[01]) (GUARD Agent[02])", "NOT (IDENTIFIED Agent[04] HUMAN)", "DISAGREE WHISPER day2 ID:7",
  "AGREE TALK day1 ID:3", "ESTIMATE ANY ANY", "DIVINATION Agent[05]", "ATTACK Agent[05]", "GUARDED Agent[05]",
  "ATTACKED Agent[05]", "VOTED Agent[05]", "GUARD Agent[05]", "IDENTIFIED Agent[05] ANY"}
for _, text in ipairs(texts) do
  for _, lang in ipairs{"en", "ja"} do
    eq(P.describe(P.parse(text), lang, 1), c_describe(text, lang, 1), "describe " .. lang .. " " .. text)
  end
end
eq(P.describe(P.parse("Agent[01] DIVINED Agent[03] WEREWOLF")), "Agent[01] says Agent[03] is a werewolf (divined)")
eq(P.describe(P.parse("DIVINED Agent[03] WEREWOLF"), "en", 1), "Agent[01] says Agent[03] is a werewolf (divined)")

-- Resolution (spec 4.1).
local res = P.resolve(P.parse("REQUEST Agent[02] (DIVINATION Agent[03])"), 1)
eq({res.who, res.args[1].who}, {1, 2}, "REQUEST: inner subject is the target")
res = P.resolve(P.parse("Agent[02] BECAUSE (DAY 1 (Agent[01] VOTE Agent[02])) (VOTE Agent[01])"), 2)
eq({res.who, res.args[1].who, res.args[1].args[1].who, res.args[2].who}, {2, 2, 1, 2}, "BECAUSE resolution")

-- What the host pushes after resolving for the speaker.
eq(push_resolved("REQUEST ANY (Agent[03] AND (VOTE Agent[01]) (NOT (GUARD Agent[02])))", 5),
  {verb = "REQUEST", who = 5, target = "ANY", args = {{verb = "AND", subject = 3, who = 3, args = {
    {verb = "VOTE", who = 3, target = 1},
    {verb = "NOT", who = 3, args = {{verb = "GUARD", who = 3, target = 2}}}}}}}, "pushed resolved tree")
eq(P.describe(P.wrap(push_resolved("VOTE Agent[02]", 4)), "en", 4), "Agent[04] will vote for Agent[02]", "wrap")

-- ANY expansion (spec 5.4).
local x = P.expand_any(P.parse("Agent[02] INQUIRE Agent[01] (VOTED ANY)"), {1, 2, 3})
eq(tostring(x), "Agent[02] INQUIRE Agent[01] (OR (VOTED Agent[01]) (VOTED Agent[02]) (VOTED Agent[03]))", "expand inner")
x = P.expand_any(P.parse("REQUEST ANY (DIVINED Agent[03] HUMAN)"), {1, 2})
eq(tostring(x), "OR (REQUEST Agent[01] (DIVINED Agent[03] HUMAN)) (REQUEST Agent[02] (DIVINED Agent[03] HUMAN))", "expand outer")
ok(select(2, P.expand_any(P.parse("ESTIMATE ANY ANY"), {1, 2, 3}, 5)) ~= nil, "expansion budget")

-- Random trees: print, parse through C, compare.
local seed = 12345
local function rnd(n)
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n + 1
end
local function agent() return rnd(5) == 1 and P.ANY or rnd(15) end
local roles = {"VILLAGER", "SEER", "MEDIUM", "BODYGUARD", "WEREWOLF", "POSSESSED", "ANY"}
local species = {"HUMAN", "WEREWOLF", "ANY"}
local leaf = {
  function() return P.estimate(agent(), roles[rnd(#roles)]) end,
  function() return P.comingout(agent(), roles[rnd(#roles)]) end,
  function() return P.divined(agent(), species[rnd(3)]) end,
  function() return P.identified(agent(), species[rnd(3)]) end,
  function() return P.vote(agent()) end, function() return P.voted(agent()) end,
  function() return P.guard(agent()) end, function() return P.guarded(agent()) end,
  function() return P.attack(agent()) end, function() return P.attacked(agent()) end,
  function() return P.divination(agent()) end,
  function() return P.agree(rnd(2) == 1 and "TALK" or "WHISPER", rnd(10) - 1, rnd(50) - 1) end,
  function() return P.disagree("TALK", rnd(10) - 1, rnd(50) - 1) end,
}
local function gen(depth)
  local s
  if depth <= 0 or rnd(3) == 1 then
    s = leaf[rnd(#leaf)]()
  else
    local k = rnd(8)
    if k == 1 then s = P.request(agent(), gen(depth - 1))
    elseif k == 2 then s = P.inquire(agent(), gen(depth - 1))
    elseif k == 3 then s = P.because(gen(depth - 1), gen(depth - 1))
    elseif k == 4 then s = P.day(rnd(10) - 1, gen(depth - 1))
    elseif k == 5 then s = P.not_(gen(depth - 1))
    elseif k == 6 then s = P.and_(gen(depth - 1), gen(depth - 1), gen(depth - 1))
    elseif k == 7 then s = P.or_(gen(depth - 1), gen(depth - 1))
    else s = P.xor(gen(depth - 1), gen(depth - 1)) end
  end
  if rnd(3) == 1 then P.by(agent(), s) end
  return s
end
for _ = 1, 300 do
  local s = gen(4)
  local text = tostring(s)
  local back, e = P.parse(text, "strict")
  ok(back ~= nil, "random tree text is valid: " .. text .. " " .. tostring(e))
  eq(tostring(back), text, "random round trip")
  eq(back, P.parse(tostring(back), "strict"), "parse(print(parse)) is stable")
end

-- The sandbox runs this module once and shares its functions between
-- games (docs/sandbox.md, "One sandbox, many games"): no function of it may
-- read or write a global when called. A Lua function that does has an
-- upvalue named _ENV; walk every function reachable from the module (its
-- fields, their upvalues, the tables those hold) and look for one.
do
  local seen, found, n = {}, {}, 0
  local walk
  local function visit(v, path)
    if type(v) == "function" then walk(v, path)
    elseif type(v) == "table" and not seen[v] then
      seen[v] = true
      for k, x in pairs(v) do visit(x, path .. "." .. tostring(k)) end
      local mt = debug.getmetatable(v)
      if mt then visit(mt, path .. "<meta>") end
    end
  end
  walk = function(f, path)
    if seen[f] then return end
    seen[f] = true
    n = n + 1
    for i = 1, 255 do
      local name, v = debug.getupvalue(f, i)
      if not name then break end
      if name == "_ENV" then found[#found + 1] = path end
      visit(v, path .. "^" .. name)
    end
  end
  visit(P, "P")
  visit(P.vote(1), "sentence")
  ok(n > 40, "functions reached: " .. n)
  ok(#found == 0, "functions that read globals when called: " .. table.concat(found, ", "))
end

return passed
