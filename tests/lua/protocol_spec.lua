-- The agents' protocol library (lua/aiwolf/protocol.lua) under plain Lua
-- 5.4, where the C core is absent: builders, printing, describe, subject
-- resolution and ANY expansion are pure Lua. Every printed text is also fed
-- to the built binary (`aiwolf protocol`, the C parser in strict mode), which
-- must call it valid and print it back unchanged. Parsing through the C core
-- itself is tested by tests/protocol/protocol_core_test.lua.
local P = require "aiwolf.protocol"

local function binary_verdicts(texts)
  local bin = assert(os.getenv("AIWOLF_BIN"), "AIWOLF_BIN names the built aiwolf binary")
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(table.concat(texts, "\n"), "\n")
  f:close()
  local p = assert(io.popen(bin .. " protocol < " .. path))
  local out = {}
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  os.remove(path)
  return out
end

describe("aiwolf.protocol without the C core", function()
  it("says the parser needs the core, and does not pretend", function()
    assert.is_false(P.has_parser)
    local t, err = P.parse("VOTE Agent[01]")
    assert.is_nil(t)
    assert.matches("protocol_core", err)
  end)
end)

describe("builders and printing", function()
  local me = 2
  local cases = {
    {function() return P.vote(3) end, "VOTE Agent[03]"},
    {function() return P.comingout(me, "SEER") end, "COMINGOUT Agent[02] SEER"},
    {function() return P.request(P.ANY, P.vote(3)) end, "REQUEST ANY (VOTE Agent[03])"},
    {function() return P.because(P.day(1, P.by(2, P.divined(3, "WEREWOLF"))), P.vote(3)) end,
      "BECAUSE (DAY 1 (Agent[02] DIVINED Agent[03] WEREWOLF)) (VOTE Agent[03])"},
    {function() return P.over() end, "Over"},
    {function() return P.skip() end, "Skip"},
    {function() return P.agree("TALK", 1, 3) end, "AGREE TALK day1 ID:3"},
    {function() return P.disagree("WHISPER", 0, 12) end, "DISAGREE WHISPER day0 ID:12"},
    {function() return P.by(1, P.request(2, P.by(2, P.guard(3)))) end, "Agent[01] REQUEST Agent[02] (GUARD Agent[03])"},
    {function() return P.inquire(1, P.voted(P.ANY)) end, "INQUIRE Agent[01] (VOTED ANY)"},
    {function() return P.by(3, P["and"](P.by(3, P.vote(1)), P.by(4, P.vote(1)))) end,
      "Agent[03] AND (VOTE Agent[01]) (Agent[04] VOTE Agent[01])"},
    {function() return P.or_(P.estimate(1, "WEREWOLF"), P.estimate(1, "POSSESSED")) end,
      "OR (ESTIMATE Agent[01] WEREWOLF) (ESTIMATE Agent[01] POSSESSED)"},
    {function() return P.xor(P.identified(4, "HUMAN"), P.identified(4, "ANY")) end,
      "XOR (IDENTIFIED Agent[04] HUMAN) (IDENTIFIED Agent[04] ANY)"},
    {function() return P["not"](P.attacked(5)) end, "NOT (ATTACKED Agent[05])"},
    {function() return P.by(P.ANY, P.attack(5)) end, "ANY ATTACK Agent[05]"},
    {function() return P.divination(15) end, "DIVINATION Agent[15]"},
    {function() return P.guarded(1) end, "GUARDED Agent[01]"},
    {function() return P.comingout(me, "ANY") end, "COMINGOUT Agent[02] ANY"},
  }

  it("prints the canonical official text", function()
    for _, c in ipairs(cases) do
      local s = c[1]()
      assert.are.equal(c[2], tostring(s))
      assert.are.equal(c[2], P.print(s))
    end
  end)

  it("prints only what the official parser accepts back unchanged", function()
    local texts = {}
    for i, c in ipairs(cases) do texts[i] = P.print(c[1]()) end
    local verdicts = binary_verdicts(texts)
    assert.are.equal(#texts, #verdicts)
    for i, text in ipairs(texts) do
      assert.are.equal("valid\t" .. text, verdicts[i])
    end
  end)

  it("says one-agent sentences as their builders print them (P.say)", function()
    local builders = {ESTIMATE = P.estimate, COMINGOUT = P.comingout, DIVINED = P.divined,
      IDENTIFIED = P.identified, DIVINATION = P.divination, GUARD = P.guard, VOTE = P.vote,
      ATTACK = P.attack, GUARDED = P.guarded, VOTED = P.voted, ATTACKED = P.attacked}
    local words = {ESTIMATE = "WEREWOLF", COMINGOUT = "SEER", DIVINED = "HUMAN", IDENTIFIED = "WEREWOLF"}
    local n = 0
    for verb, build in pairs(builders) do
      for _, target in ipairs({1, 7, 15, 99, 100, P.ANY}) do
        local word = words[verb]
        assert.are.equal(P.print(build(target, word)), P.say(verb, target, word))
        n = n + 1
      end
    end
    assert.are.equal(66, n)
    assert.are.equal("Over", P.say("OVER"))
    assert.are.equal("Skip", P.say("SKIP"))
    assert.are.equal("ESTIMATE Agent[03] VILLAGER", P.say("ESTIMATE", 3, "VILLAGER"))
    -- the builders' checks
    assert.has_error(function() P.say("VOTE", 0) end)
    assert.has_error(function() P.say("VOTE", "3") end)
    assert.has_error(function() P.say("VOTE", 3.0) end) -- a float, though the texts of 1..99 are kept by number
    assert.has_error(function() P.say("VOTE", -1) end)
    assert.has_error(function() P.say("VOTE") end)
    assert.has_error(function() P.say("COMINGOUT", 3, "HUMAN") end) -- a species where a role goes
    assert.has_error(function() P.say("VOTE", 3.5) end)
    assert.has_error(function() P.say("ESTIMATE", 3, "KING") end)
    assert.has_error(function() P.say("ESTIMATE", 3) end)
    assert.has_error(function() P.say("DIVINED", 3, "SEER") end)
    -- verbs that are not about one agent
    assert.has_error(function() P.say("REQUEST", 3) end)
    assert.has_error(function() P.say("AGREE", 3) end)
    assert.has_error(function() P.say("vote", 3) end)
  end)

  it("raises on misuse", function()
    assert.has_error(function() P.vote(0) end)
    assert.has_error(function() P.vote("3") end)
    assert.has_error(function() P.vote(1.5) end)
    assert.has_error(function() P.comingout(1, "KING") end)
    assert.has_error(function() P.divined(1, "SEER") end)
    assert.has_error(function() P.agree("talk", 1, 1) end)
    assert.has_error(function() P.because(P.vote(1)) end)
    assert.has_error(function() P.xor(P.vote(1), P.vote(2), P.vote(3)) end)
    assert.has_error(function() P.request(1, "VOTE Agent[01]") end)
    assert.has_error(function() P.day(-1, P.vote(1)) end)
    assert.has_error(function() P.by(0, P.vote(1)) end)
  end)
end)

describe("subjects (spec 4.1)", function()
  it("resolves omitted subjects", function()
    local s = P.resolve(P.request(2, P.divination(3)), 7)
    assert.are.equal(7, s.who)
    assert.are.equal(2, s.args[1].who)
    s = P.resolve(P.by(2, P.because(P.day(1, P.by(1, P.vote(2))), P.vote(1))), 9)
    assert.are.same({2, 2, 1, 2}, {s.who, s.args[1].who, s.args[1].args[1].who, s.args[2].who})
    s = P.resolve(P.request(P.ANY, P.vote(1)), 3)
    assert.are.equal(P.ANY, s.args[1].who)
  end)

  it("does not change the sentence it resolves", function()
    local s = P.vote(1)
    P.resolve(s, 4)
    assert.is_nil(s.who)
  end)
end)

describe("ANY expansion (spec 5.4)", function()
  it("expands a nested ANY in place", function()
    local x = P.expand_any(P.by(2, P.inquire(1, P.voted(P.ANY))), {1, 2, 3})
    assert.are.equal("Agent[02] INQUIRE Agent[01] (OR (VOTED Agent[01]) (VOTED Agent[02]) (VOTED Agent[03]))",
      tostring(x))
  end)
  it("expands the REQUEST that carries the ANY", function()
    local x = P.expand_any(P.request(P.ANY, P.divined(3, "HUMAN")), {1, 2})
    assert.are.equal("OR (REQUEST Agent[01] (DIVINED Agent[03] HUMAN)) (REQUEST Agent[02] (DIVINED Agent[03] HUMAN))",
      tostring(x))
  end)
  it("expands roles and species", function()
    assert.are.equal("OR (DIVINED Agent[01] HUMAN) (DIVINED Agent[01] WEREWOLF)",
      tostring(P.expand_any(P.divined(1, "ANY"), {1, 2})))
    assert.are.equal(6, #P.expand_any(P.estimate(1, "ANY"), {1}).args)
  end)
  it("refuses to grow past the limit", function()
    local x, err = P.expand_any(P.by(P.ANY, P.estimate(P.ANY, "ANY")), {1, 2, 3, 4, 5}, 100)
    assert.is_nil(x)
    assert.matches("too large", err)
  end)
end)

describe("describe", function()
  it("says what a sentence means in English", function()
    assert.are.equal("Agent[01] says Agent[03] is a werewolf (divined)",
      P.describe(P.by(1, P.divined(3, "WEREWOLF"))))
    assert.are.equal("Agent[01] says Agent[03] is a werewolf (divined)",
      P.describe(P.divined(3, "WEREWOLF"), "en", 1))
    assert.are.equal("the speaker will vote for Agent[03]", P.describe(P.vote(3)))
    assert.are.equal("Agent[05] asks anyone to act so that: anyone will vote for Agent[03]",
      P.describe(P.request(P.ANY, P.vote(3)), "en", 5))
    assert.are.equal("Agent[02] will vote for Agent[01], because on day 1, Agent[01] will vote for Agent[02]",
      P.describe(P.because(P.day(1, P.by(1, P.vote(2))), P.vote(1)), "en", 2))
  end)
  it("and in Japanese", function()
    assert.are.equal("Agent[01]はAgent[03]を占って人狼だった", P.describe(P.by(1, P.divined(3, "WEREWOLF")), "ja"))
    assert.are.equal("Agent[02]はAgent[01]に「Agent[01]はAgent[03]に投票する」ことを求める",
      P.describe(P.request(1, P.vote(3)), "ja", 2))
  end)
  it("rejects unknown languages", function()
    assert.has_error(function() P.describe(P.vote(1), "fr") end)
  end)
end)
