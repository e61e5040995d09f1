-- Specs for aiwolf.agent: the info helpers, talk sentences and the base
-- agent's memory, with hand-built info tables shaped like the host's.
local A = require "aiwolf.agent"
local P = require "aiwolf.protocol"

-- A talk entry as the host builds it; `parsed` is the tree the host parsed.
local function talk(agent, s, day, idx)
  return {agent = agent, day = day or 1, idx = idx or 0, turn = 0, text = tostring(s), parsed = s}
end

local function info(t)
  local n = t.n or 5
  local status = {}
  for a = 1, n do status[a] = "ALIVE" end
  for _, a in ipairs(t.dead or {}) do status[a] = "DEAD" end
  local roleMap = t.roleMap or {}
  roleMap[t.me or 1] = roleMap[t.me or 1] or t.role or "VILLAGER"
  return {
    agent = t.me or 1, day = t.day or 1, role = t.role or "VILLAGER", statusMap = status,
    roleMap = roleMap, talkList = t.talks or {}, whisperList = t.whispers or {},
    voteList = {}, latestVoteList = {}, lastDeadAgentList = t.lastDead or {},
    divineResult = t.divineResult, mediumResult = t.mediumResult,
    executedAgent = t.executed, latestExecutedAgent = t.latestExecuted,
    remainTalkMap = {}, remainWhisperMap = {}, existingRoleList = {},
  }
end

describe("aiwolf.agent helpers", function()
  it("lists living agents and living others, sorted", function()
    local i = info{n = 6, me = 3, dead = {2, 5}}
    assert.are.same({1, 3, 4, 6}, A.alive(i))
    assert.are.same({1, 4, 6}, A.others(i))
    assert.is_true(A.is_alive(i, 4))
    assert.is_false(A.is_alive(i, 5))
  end)

  it("lists fellow werewolves only for a werewolf", function()
    local i = info{n = 7, me = 2, role = "WEREWOLF", dead = {6},
      roleMap = {[4] = "WEREWOLF", [6] = "WEREWOLF"}}
    assert.are.same({4}, A.fellows(i))
    assert.are.same({4, 6}, A.fellows(i, true))
    assert.are.same({1, 3, 5, 7}, A.humans(i))
    local v = info{n = 5, me = 1, role = "SEER"}
    assert.are.same({}, A.fellows(v))
    assert.are.same({2, 3, 4, 5}, A.humans(v))
  end)

  it("picks uniformly and replays from the seed", function()
    assert.is_nil(A.pick({}))
    local counts = {0, 0, 0}
    math.randomseed(42)
    local first = {}
    for k = 1, 3000 do
      local x = A.pick({1, 2, 3})
      counts[x] = counts[x] + 1
      if k <= 20 then first[k] = x end
    end
    for _, c in ipairs(counts) do assert.is_true(c > 850 and c < 1150) end
    math.randomseed(42)
    for k = 1, 20 do assert.are.equal(first[k], A.pick({1, 2, 3})) end
  end)

  it("finds the best elements and breaks ties at random", function()
    local score = {[1] = 3, [2] = 7, [3] = 7, [4] = nil, [5] = 1}
    local best, top = A.best({1, 2, 3, 4, 5}, function(a) return score[a] end)
    assert.are.same({2, 3}, best)
    assert.are.equal(7, top)
    for _ = 1, 20 do
      local x = A.argmax({1, 2, 3, 4, 5}, function(a) return score[a] end)
      assert.is_true(x == 2 or x == 3)
    end
    assert.is_nil(A.argmax({4}, function() return nil end))
    assert.are.same({2, 4}, A.filter({1, 2, 3, 4}, function(x) return x % 2 == 0 end))
  end)

  it("tallies maps and sorts keys", function()
    assert.are.same({[3] = 2, [5] = 1}, A.tally({[1] = 3, [2] = 3, [4] = 5}))
    assert.are.same({1, 2, 10, "a", "b"}, A.sorted_keys({b = 1, [10] = 1, a = 1, [2] = 1, [1] = 1}))
  end)

  it("raises on misuse", function()
    assert.has_error(function() A.alive(nil) end)
    assert.has_error(function() A.others({}) end)
    assert.has_error(function() A.pick(nil) end)
    assert.has_error(function() A.new(3) end)
    assert.has_error(function() A.tree("text") end)
  end)
end)

describe("aiwolf.agent and the sample agents", function()
  it("create no globals", function()
    local before = {}
    for k in pairs(_G) do before[k] = true end
    dofile("lua/aiwolf/agent.lua")
    dofile("agents/sample.lua")
    dofile("agents/tutorial.lua")
    for k in pairs(_G) do assert.is_true(before[k], "new global " .. tostring(k)) end
  end)
end)

describe("aiwolf.agent sentences", function()
  it("resolves the speaker as the subject", function()
    local list = A.sentences(talk(4, P.vote(2)))
    assert.are.equal(1, #list)
    assert.are.equal(4, list[1].who)
    assert.are.equal("VOTE", list[1].s.verb)
  end)

  local function verbs_of(list)
    local out = {}
    for i, x in ipairs(list) do
      out[i] = string.format("%s %s%s", x.who, x.s.verb, x.asserted and "" or " (not asserted)")
    end
    return out
  end

  it("lists operators and every nested sentence, in text order", function()
    local s = P.and_(P.comingout(4, "SEER"), P.because(P.divined(2, "WEREWOLF"), P.vote(2)),
      P.day(1, P.by(3, P.vote(5))))
    local list = A.sentences(talk(4, s))
    assert.are.same({"4 AND", "4 COMINGOUT", "4 BECAUSE", "4 DIVINED", "4 VOTE", "4 DAY", "3 VOTE"},
      verbs_of(list))
    assert.are.same({0, 1, 1, 2, 2, 1, 2}, (function()
      local d = {}
      for i, x in ipairs(list) do d[i] = x.depth end
      return d
    end)())
    assert.is_nil(list[1].op)
    assert.are.equal("BECAUSE", list[4].op)
  end)

  it("opens BECAUSE: the reason is listed and asserted, as the sample seer talks", function()
    local list = A.sentences(talk(1, P.because(P.divined(3, "WEREWOLF"), P.vote(3))))
    assert.are.same({"1 BECAUSE", "1 DIVINED", "1 VOTE"}, verbs_of(list))
  end)

  it("opens REQUEST, INQUIRE, NOT, OR and XOR without asserting their operands", function()
    assert.are.same({"2 REQUEST", "ANY VOTE (not asserted)"},
      verbs_of(A.sentences(talk(2, P.request(P.ANY, P.vote(3))))))
    assert.are.same({"2 INQUIRE", "5 VOTED (not asserted)"},
      verbs_of(A.sentences(talk(2, P.inquire(5, P.voted(P.ANY))))))
    assert.are.same({"2 NOT", "2 DIVINED (not asserted)"},
      verbs_of(A.sentences(talk(2, P.not_(P.divined(3, "WEREWOLF"))))))
    assert.are.same({"2 OR", "2 VOTE (not asserted)", "2 VOTE (not asserted)"},
      verbs_of(A.sentences(talk(2, P.or_(P.vote(3), P.vote(4))))))
    assert.are.same({"2 XOR", "2 ESTIMATE (not asserted)", "2 ESTIMATE (not asserted)"},
      verbs_of(A.sentences(talk(2, P.xor(P.estimate(3, "WEREWOLF"), P.estimate(4, "WEREWOLF"))))))
    -- an assertion under a non-asserting operator stays unasserted
    assert.are.same({"2 NOT", "2 AND (not asserted)", "2 VOTE (not asserted)"},
      verbs_of(A.sentences(talk(2, P.not_(P.and_(P.vote(3)))))))
  end)

  it("returns nothing for an unparsable talk", function()
    if not P.has_parser then
      assert.are.same({}, A.sentences({agent = 1, day = 1, idx = 0, turn = 0, text = "VOTE Agent[02]"}))
    end
  end)

  it("hears reports nested in BECAUSE, AND and DAY, and not under NOT or REQUEST", function()
    local ag = A.new{}
    local talks = {
      talk(1, P.because(P.divined(3, "WEREWOLF"), P.vote(3)), 1, 0),
      talk(2, P.and_(P.comingout(2, "MEDIUM"), P.day(1, P.identified(4, "HUMAN"))), 1, 1),
      talk(5, P.not_(P.divined(2, "WEREWOLF")), 1, 2),
      talk(5, P.request(4, P.vote(1)), 1, 3),
    }
    local i = info{day = 1, me = 5, talks = talks}
    ag:initialize(info{day = 0, me = 5}, {})
    local heard = {}
    function ag:onTalk(t, who, s, x) heard[#heard + 1] = t.idx .. ":" .. s.verb .. (x.asserted and "" or "?") end
    ag:update(i)
    assert.are.same({
      {who = 1, verb = "DIVINED", target = 3, species = "WEREWOLF", day = 1},
      {who = 2, verb = "IDENTIFIED", target = 4, species = "HUMAN", day = 1},
    }, ag.reports)
    assert.are.same({[1] = 3}, ag.declared) -- not {[4] = 1}: REQUEST asks, it does not declare
    assert.are.same({[2] = "MEDIUM"}, ag.claims)
    assert.are.same({"0:BECAUSE", "0:DIVINED", "0:VOTE", "1:AND", "1:COMINGOUT", "1:DAY", "1:IDENTIFIED",
      "2:NOT", "2:DIVINED?", "3:REQUEST", "3:VOTE?"}, heard)
  end)
end)

describe("aiwolf.agent base agent", function()
  it("inherits default methods that play legally", function()
    local ag = A.new{name = "x"}
    assert.are.equal("x", ag:getName())
    local i = info{n = 5, me = 2, role = "WEREWOLF", roleMap = {[4] = "WEREWOLF"}}
    ag:initialize(i, {playerNum = 5})
    ag:update(i)
    assert.are.equal("Over", ag:talk())
    assert.are.equal("Over", ag:whisper())
    for _ = 1, 50 do
      local v = ag:vote()
      assert.is_true(v ~= 2 and v >= 1 and v <= 5)
      local t = ag:attack()
      assert.is_true(t ~= 2 and t ~= 4)
    end
  end)

  it("lets an agent override a method and call the base", function()
    local heard = {}
    local ag = A.new{}
    function ag:update(i) A.Agent.update(self, i); heard[#heard + 1] = i.day end
    local i = info{}
    ag:initialize(i, {})
    ag:update(i)
    assert.are.same({1}, heard)
    assert.are.equal("agent", ag:getName())
  end)

  it("accumulates its own results across days", function()
    local ag = A.new{}
    local i0 = info{day = 0, role = "SEER"}
    ag:initialize(i0, {})
    ag:update(i0)
    ag:update(info{day = 1, role = "SEER", divineResult = {agent = 1, day = 0, target = 3, result = "HUMAN"}})
    ag:update(info{day = 1, role = "SEER", divineResult = {agent = 1, day = 0, target = 3, result = "HUMAN"}})
    ag:update(info{day = 2, role = "SEER", divineResult = {agent = 1, day = 1, target = 4, result = "WEREWOLF"}})
    assert.are.equal(2, #ag.divinations)
    assert.are.same({[3] = "HUMAN", [4] = "WEREWOLF"}, ag.divined)
    assert.are.equal(1, ag.divinations[2].day)
  end)

  it("keeps today's voters sorted, as A.sorted_keys(declared) gives them", function()
    local ag = A.new{}
    local talks = {}
    local i = info{n = 9, day = 1, talks = talks}
    ag:initialize(info{n = 9, day = 0}, {})
    -- voters come in out of order, change their minds, and one only requests
    for k, t in ipairs{{6, P.vote(2)}, {3, P.vote(6)}, {8, P.vote(1)}, {3, P.vote(7)},
                       {1, P.vote(3)}, {5, P.request(4, P.vote(2))}, {4, P.vote(4)}, {1, P.vote(3)}} do
      talks[k] = talk(t[1], t[2], 1, k - 1)
      ag:update(i)
      assert.are.same(A.sorted_keys(ag.declared), ag.voters)
    end
    assert.are.same({1, 3, 4, 6, 8}, ag.voters)
    -- hand-built trees with an explicit subject count for their subject
    talks[#talks + 1] = {agent = 9, day = 1, idx = 8, turn = 0, text = "Agent[02] VOTE Agent[05]",
      parsed = P.by(2, P.vote(5))}
    ag:update(i)
    assert.are.same({1, 2, 3, 4, 6, 8}, ag.voters)
    ag:update(info{n = 9, day = 2, talks = {}})
    assert.are.same({}, ag.voters)
  end)

  it("hears every sentence through an agent's own _hear when it has one", function()
    local ag = A.new{}
    local heard = {}
    function ag:_hear(t, who, s)
      heard[#heard + 1] = who .. " " .. tostring(s)
      A.Agent._hear(self, t, who, s)
    end
    local talks = {talk(2, P.vote(3), 1, 0), talk(4, P.comingout(4, "SEER"), 1, 1), talk(5, P.vote(3), 1, 2)}
    ag:initialize(info{day = 0}, {})
    ag:update(info{day = 1, talks = talks})
    assert.are.same({"2 VOTE Agent[03]", "4 COMINGOUT Agent[04] SEER", "5 VOTE Agent[03]"}, heard)
    assert.are.same({[2] = 3, [5] = 3}, ag.declared)
  end)

  it("reads a growing talk list once and resets daily state", function()
    local ag = A.new{}
    local seen = 0
    function ag:onTalk() seen = seen + 1 end
    local talks = {}
    local i = info{day = 1, talks = talks}
    ag:initialize(info{day = 0}, {})
    talks[1] = talk(2, P.comingout(2, "SEER"), 1, 0)
    talks[2] = talk(3, P.vote(4), 1, 1)
    ag:update(i)
    talks[3] = talk(2, P.divined(4, "WEREWOLF"), 1, 2)
    talks[4] = talk(5, P.vote(2), 1, 3)
    talks[5] = talk(3, P.vote(5), 1, 4) -- agent 3 changes its mind
    talks[6] = talk(4, P.estimate(2, "WEREWOLF"), 1, 5)
    ag:update(i)
    ag:update(i)
    assert.are.equal(6, seen)
    assert.are.same({[2] = "SEER"}, ag.claims)
    assert.are.same({2}, ag.claimants)
    assert.are.equal(1, #ag.reports)
    assert.are.same({who = 2, verb = "DIVINED", target = 4, species = "WEREWOLF", day = 1}, ag.reports[1])
    assert.are.same({[3] = 5, [5] = 2}, ag.declared)
    assert.are.same({[2] = 1, [5] = 1}, A.tally(ag.declared))
    assert.are.equal("WEREWOLF", ag.estimates[4][2])
    assert.are.same({[2] = 1}, ag:estimated("WEREWOLF"))
    assert.are.same({}, ag:estimated("SEER"))
    assert.are.same({2}, ag:claimantsOf("SEER"))
    assert.are.same({}, ag:claimantsOf("MEDIUM"))
    -- the next day: claims and reports stay, today's declarations go
    ag:update(info{day = 2, talks = {}, lastDead = {1}, executed = 4})
    assert.are.same({}, ag.declared)
    assert.are.same({[2] = "SEER"}, ag.claims)
    assert.are.equal(1, ag.killed[1])
    assert.are.equal(1, ag.executed[4])
  end)

  it("keeps every day's final votes once", function()
    local ag = A.new{}
    ag:initialize(info{day = 0}, {})
    local i2 = info{day = 2}
    i2.voteList = {{agent = 1, day = 1, target = 3}, {agent = 2, day = 1, target = 3}}
    ag:update(i2)
    ag:update(i2)
    local i3 = info{day = 3}
    i3.voteList = {{agent = 1, day = 2, target = 4}}
    ag:update(i3)
    assert.are.same({{agent = 1, day = 1, target = 3}, {agent = 2, day = 1, target = 3},
      {agent = 1, day = 2, target = 4}}, ag.votes)
  end)

  it("never reads voteList for an agent that set keepVotes = false", function()
    local ag = A.new{}
    ag:initialize(info{day = 0}, {})
    ag.keepVotes = false
    local i2 = info{day = 2}
    i2.voteList = nil -- a read of voteList finds the trap below
    setmetatable(i2, {__index = function(_, k)
      if k == "voteList" then error("voteList was read") end
    end})
    ag:update(i2)
    assert.are.same({}, ag.votes)
    ag.keepVotes = nil -- the default: kept again from the next day's list
    local i3 = info{day = 3}
    i3.voteList = {{agent = 1, day = 2, target = 4}}
    ag:update(i3)
    assert.are.same({{agent = 1, day = 2, target = 4}}, ag.votes)
  end)

  it("reads no talk while keepTalk is false, and the day's unread ones after", function()
    local ag = A.new{}
    local i = info{talks = {talk(2, P.comingout(2, "SEER"), 1, 0)}}
    ag:initialize(i, {})
    ag.keepTalk = false
    ag:update(i)
    assert.are.same({}, ag.claims)
    i.talkList[2] = talk(3, P.vote(4), 1, 1)
    ag:update(i)
    assert.are.same({}, ag.declared)
    ag.keepTalk = true
    ag:update(i)
    assert.are.same({[2] = "SEER"}, ag.claims)
    assert.are.same({[3] = 4}, ag.declared)
  end)

  it("collects whispered attack proposals in order", function()
    local ag = A.new{}
    local i = info{me = 1, role = "WEREWOLF", roleMap = {[2] = "WEREWOLF"},
      whispers = {talk(2, P.attack(4), 1, 0), talk(1, P.attack(3), 1, 1)}}
    ag:initialize(i, {})
    ag:update(i)
    assert.are.same({{who = 2, target = 4, idx = 0}, {who = 1, target = 3, idx = 1}}, ag.attackProposals)
  end)
end)
