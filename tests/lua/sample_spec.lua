-- Specs for agents/sample.lua's decisions, with hand-built info tables shaped
-- like the host's (runtime/luahost/luaseat.c push_info). Each test loads a fresh
-- copy of the agent, as every game does.
local P = require "aiwolf.protocol"

local function load_sample()
  return dofile("agents/sample.lua")
end

local function talk(agent, s, day, idx)
  return {agent = agent, day = day or 1, idx = idx or 0, turn = 0, text = tostring(s), parsed = s}
end

-- info{n, me, role, day, dead, roleMap, talks, whispers, ...}
local function info(t)
  local n = t.n or 5
  local status = {}
  for a = 1, n do status[a] = "ALIVE" end
  for _, a in ipairs(t.dead or {}) do status[a] = "DEAD" end
  local roleMap = {}
  for a, r in pairs(t.roleMap or {}) do roleMap[a] = r end
  roleMap[t.me or 1] = t.role or "VILLAGER"
  return {
    agent = t.me or 1, day = t.day or 1, role = t.role or "VILLAGER", statusMap = status,
    roleMap = roleMap, talkList = t.talks or {}, whisperList = t.whispers or {},
    voteList = {}, latestVoteList = {}, lastDeadAgentList = t.lastDead or {},
    divineResult = t.divineResult, mediumResult = t.mediumResult,
    executedAgent = t.executed, latestExecutedAgent = t.latestExecuted,
    remainTalkMap = {}, remainWhisperMap = {}, existingRoleList = {},
  }
end

local function setting(n)
  local counts = n == 15
    and {VILLAGER = 8, SEER = 1, MEDIUM = 1, BODYGUARD = 1, WEREWOLF = 3, POSSESSED = 1}
    or {VILLAGER = 2, SEER = 1, WEREWOLF = 1, POSSESSED = 1}
  return {playerNum = n, roleNumMap = counts, maxTalk = 10, maxTalkTurn = 20, maxWhisper = 10,
    maxWhisperTurn = 20, maxSkip = 2, maxRevote = 1, maxAttackRevote = 1, talkOnFirstDay = false}
end

-- Starts an agent on day 0 and moves it to the day of `i` (update + dayStart).
local function start(i, n)
  local ag = load_sample()
  local i0 = info{n = n or #i.statusMap, me = i.agent, role = i.role, day = 0, roleMap = i.roleMap}
  ag:initialize(i0, setting(n or #i.statusMap))
  ag:update(i0)
  ag:dayStart()
  ag:update(i)
  ag:dayStart()
  return ag
end

-- Talks until Over (at most 10 times), returning the texts before Over.
local function talk_all(ag, i)
  local out = {}
  for _ = 1, 10 do
    ag:update(i)
    local t = ag:talk()
    if t == "Over" then return out end
    out[#out + 1] = t
  end
  error("no Over after 10 talks")
end

-- The texts sample.lua may say, in the official spelling (a strict subset of
-- protocol 3.6). Inside aiwolf, P.validate checks them as well.
local AG = "Agent%[(%d%d)%]"
local valid_forms = {
  "^COMINGOUT " .. AG .. " (%u+)$", "^DIVINED " .. AG .. " (%u+)$", "^IDENTIFIED " .. AG .. " (%u+)$",
  "^VOTE " .. AG .. "$", "^ATTACK " .. AG .. "$", "^REQUEST ANY %(VOTE " .. AG .. "%)$",
}
local words = {SEER = true, MEDIUM = true, HUMAN = true, WEREWOLF = true}
local function valid(text, n)
  if text == "Over" or text == "Skip" then return true end
  if text:match("^AGREE WHISPER day[1-9]%d* ID:%d+$") or text:match("^AGREE WHISPER day0 ID:%d+$") then
    return true
  end
  if P.has_parser and not P.validate(text, "strict") then return false end
  local d, v = text:match("^BECAUSE %(DIVINED Agent%[(%d%d)%] WEREWOLF%) %(VOTE Agent%[(%d%d)%]%)$")
  if d then return d == v and tonumber(d) >= 1 and tonumber(d) <= n end
  for _, f in ipairs(valid_forms) do
    local a, w = text:match(f)
    if a then
      a = tonumber(a)
      return a >= 1 and a <= n and (w == nil or words[w] == true)
    end
  end
  return false
end

describe("sample.lua", function()
  it("is named and returns a table of methods", function()
    local ag = load_sample()
    assert.are.equal("sample", ag:getName())
    for _, m in ipairs{"initialize", "update", "dayStart", "talk", "whisper", "vote", "divine", "guard", "attack"} do
      assert.are.equal("function", type(ag[m]), m)
    end
  end)

  describe("as the seer", function()
    it("comes out, reports a werewolf, votes for it and asks everyone to", function()
      local i = info{n = 5, me = 1, role = "SEER", day = 1,
        divineResult = {agent = 1, day = 0, target = 3, result = "WEREWOLF"}}
      local ag = start(i)
      assert.are.same({"COMINGOUT Agent[01] SEER", "DIVINED Agent[03] WEREWOLF",
        "BECAUSE (DIVINED Agent[03] WEREWOLF) (VOTE Agent[03])", "REQUEST ANY (VOTE Agent[03])"}, talk_all(ag, i))
      assert.are.equal(3, ag:vote())
    end)

    it("reports every result once, across days", function()
      local i1 = info{n = 15, me = 2, role = "SEER", day = 1,
        divineResult = {agent = 2, day = 0, target = 4, result = "HUMAN"}}
      local ag = start(i1)
      local said = talk_all(ag, i1)
      assert.are.equal("COMINGOUT Agent[02] SEER", said[1])
      assert.are.equal("DIVINED Agent[04] HUMAN", said[2])
      local i2 = info{n = 15, me = 2, role = "SEER", day = 2, dead = {1, 3},
        divineResult = {agent = 2, day = 1, target = 5, result = "WEREWOLF"}}
      ag:update(i2)
      ag:dayStart()
      local said2 = talk_all(ag, i2)
      assert.are.same({"DIVINED Agent[05] WEREWOLF", "BECAUSE (DIVINED Agent[05] WEREWOLF) (VOTE Agent[05])",
        "REQUEST ANY (VOTE Agent[05])"}, said2)
      assert.are.equal(5, ag:vote())
    end)

    it("with 5 players keeps quiet on day 1 with only a human found, then reports it all on day 2", function()
      local i1 = info{n = 5, me = 2, role = "SEER", day = 1,
        divineResult = {agent = 2, day = 0, target = 4, result = "HUMAN"}}
      local ag = start(i1)
      for _, s in ipairs(talk_all(ag, i1)) do
        assert.is_nil(s:find("COMINGOUT", 1, true), s)
        assert.is_nil(s:find("DIVINED", 1, true), s)
      end
      local i2 = info{n = 5, me = 2, role = "SEER", day = 2, dead = {1, 3},
        divineResult = {agent = 2, day = 1, target = 5, result = "HUMAN"}}
      ag:update(i2)
      ag:dayStart()
      local said2 = talk_all(ag, i2)
      assert.are.same({"COMINGOUT Agent[02] SEER", "DIVINED Agent[04] HUMAN", "DIVINED Agent[05] HUMAN"},
        {said2[1], said2[2], said2[3]})
    end)

    it("never votes for an agent it found human when another is left", function()
      local i = info{n = 5, me = 1, role = "SEER", day = 1, dead = {5},
        divineResult = {agent = 1, day = 0, target = 2, result = "HUMAN"}}
      for seed = 1, 30 do
        math.randomseed(seed)
        local ag = start(i)
        assert.are_not.equal(2, ag:vote())
      end
    end)

    it("divines agents it has not divined yet, never itself", function()
      local i = info{n = 5, me = 1, role = "SEER", day = 1,
        divineResult = {agent = 1, day = 0, target = 2, result = "HUMAN"}}
      for seed = 1, 30 do
        math.randomseed(seed)
        local ag = start(i)
        local d = ag:divine()
        assert.is_true(d == 3 or d == 4 or d == 5)
      end
    end)

    it("treats a rival seer as a liar", function()
      local i = info{n = 5, me = 1, role = "SEER", day = 1,
        divineResult = {agent = 1, day = 0, target = 2, result = "HUMAN"},
        talks = {talk(4, P.comingout(4, "SEER"), 1, 0)}}
      local ag = start(i)
      assert.are.equal(4, ag:vote())
    end)
  end)

  describe("as a villager", function()
    it("votes for the agent the only seer claimant found to be a werewolf", function()
      local i = info{n = 5, me = 1, day = 1, talks = {
        talk(2, P.comingout(2, "SEER"), 1, 0), talk(2, P.divined(4, "WEREWOLF"), 1, 1)}}
      local ag = start(i)
      assert.are.equal(4, ag:vote())
      assert.are.same({"VOTE Agent[04]"}, talk_all(ag, i))
    end)

    it("sees through a seer claimant who calls it a werewolf", function()
      local i = info{n = 5, me = 1, day = 1, talks = {
        talk(3, P.comingout(3, "SEER"), 1, 0), talk(3, P.divined(1, "WEREWOLF"), 1, 1)}}
      local ag = start(i)
      assert.are.equal(3, ag:vote())
    end)

    it("knows agents the werewolves killed were human", function()
      local i = info{n = 5, me = 1, day = 2, dead = {5}, lastDead = {5}, talks = {
        talk(3, P.comingout(3, "SEER"), 2, 0), talk(3, P.divined(5, "WEREWOLF"), 2, 1)}}
      local ag = start(i)
      assert.are.equal(3, ag:vote())
    end)

    it("suspects who voted for an agent the werewolves then killed", function()
      local i = info{n = 5, me = 1, day = 2, dead = {5}, lastDead = {5}}
      i.voteList = {{agent = 2, day = 1, target = 3}, {agent = 3, day = 1, target = 2},
        {agent = 4, day = 1, target = 5}, {agent = 5, day = 1, target = 2}}
      for seed = 1, 10 do
        math.randomseed(seed)
        assert.are.equal(4, start(i):vote())
      end
    end)

    it("keeps its ranking over Overs and works it out again after a declared vote", function()
      for seed = 1, 8 do
        math.randomseed(seed)
        local i = info{n = 5, me = 1, day = 1}
        local ag = start(i)
        local worked, voteScores = 0, ag.voteScores -- counts the rankings worked out
        ag.voteScores = function(self) worked = worked + 1 return voteScores(self) end
        local talks = i.talkList -- grows in place, as the host's does
        local _, first = ag:ranking("vote")
        assert.are.same({2, 3, 4, 5}, first) -- nothing known: all tied
        assert.are.equal(1, worked)
        talks[1], talks[2] = talk(2, P.over(), 1, 0), talk(3, P.skip(), 1, 1)
        ag:update(i)
        assert.are.same({2, 3, 4, 5}, select(2, ag:ranking("vote")))
        assert.are.equal(1, worked) -- nothing worked out again
        for a = 2, 4 do talks[#talks + 1] = talk(a, P.vote(5), 1, #talks) end
        ag:update(i)
        assert.are.same({5}, select(2, ag:ranking("vote")))
        assert.are.equal(2, worked)
        assert.are.equal(5, ag:vote())
        assert.are.equal(2, worked) -- the vote reads the talk's ranking
      end
    end)

    it("trusts a seer claimant the werewolves killed over a rival", function()
      local i1 = info{n = 15, me = 1, day = 1, talks = {
        talk(6, P.comingout(6, "SEER"), 1, 0), talk(6, P.divined(8, "WEREWOLF"), 1, 1),
        talk(10, P.comingout(10, "SEER"), 1, 2), talk(10, P.divined(8, "HUMAN"), 1, 3)}}
      local ag = start(i1, 15)
      local i2 = info{n = 15, me = 1, day = 2, dead = {6, 12}, lastDead = {6}, executed = 12}
      ag:update(i2)
      ag:dayStart()
      ag:update(i2)
      assert.is_true(ag:isLiar(10))
      assert.are.equal(8, ag:vote())
      assert.are.same({"VOTE Agent[08]", "REQUEST ANY (VOTE Agent[08])"}, talk_all(ag, i2))
    end)

    it("does not come out", function()
      local i = info{n = 5, me = 1, day = 1}
      local ag = start(i)
      for _, t in ipairs(talk_all(ag, i)) do assert.is_nil(t:find("COMINGOUT")) end
    end)
  end)

  describe("as the medium", function()
    it("comes out once it identifies a werewolf", function()
      local i = info{n = 15, me = 6, role = "MEDIUM", day = 2, dead = {9}, executed = 9,
        mediumResult = {agent = 6, day = 1, target = 9, result = "WEREWOLF"}}
      local ag = start(i, 15)
      local said = talk_all(ag, i)
      assert.are.equal("COMINGOUT Agent[06] MEDIUM", said[1])
      assert.are.equal("IDENTIFIED Agent[09] WEREWOLF", said[2])
    end)

    it("stays hidden on day 1 with nothing to report", function()
      local i = info{n = 15, me = 6, role = "MEDIUM", day = 1}
      local ag = start(i, 15)
      for _, t in ipairs(talk_all(ag, i)) do assert.is_nil(t:find("COMINGOUT")) end
    end)
  end)

  describe("as the bodyguard", function()
    it("guards the only seer claimant", function()
      local i = info{n = 15, me = 7, role = "BODYGUARD", day = 1, talks = {
        talk(12, P.comingout(12, "SEER"), 1, 0), talk(12, P.divined(3, "HUMAN"), 1, 1)}}
      local ag = start(i, 15)
      assert.are.equal(12, ag:guard())
    end)

    it("never guards itself", function()
      for seed = 1, 40 do
        math.randomseed(seed)
        local i = info{n = 5, me = 3, role = "BODYGUARD", day = 1, dead = {1, 2}, talks = {
          talk(3, P.comingout(3, "SEER"), 1, 0)}}
        local ag = start(i)
        local g = ag:guard()
        assert.is_true(g == 4 or g == 5)
      end
    end)
  end)

  describe("as a werewolf", function()
    local wolves = {[2] = "WEREWOLF", [9] = "WEREWOLF", [14] = "WEREWOLF"}

    it("never attacks a fellow werewolf, nor votes for one that is not lost", function()
      for seed = 1, 40 do
        math.randomseed(seed)
        -- Everyone claims seer and calls a werewolf human: no target is obvious.
        local talks = {}
        for a = 1, 15 do talks[#talks + 1] = talk(a, P.comingout(a, "SEER"), 1, a) end
        local i = info{n = 15, me = 2, role = "WEREWOLF", day = 1, roleMap = wolves, talks = talks,
          whispers = {talk(9, P.attack(14), 1, 0)}}
        local ag = start(i, 15)
        local a, v = ag:attack(), ag:vote()
        assert.is_nil(wolves[a])
        assert.is_nil(wolves[v])
        assert.are_not.equal(2, a)
        local w = ag:whisper()
        if w:match("^AGREE") then
          assert.are.equal("AGREE WHISPER day1 ID:0", w) -- the only proposal: ATTACK Agent[14] by 9
          assert.is_true(false, "agreed to attack a werewolf")
        end
        assert.is_truthy(w:match("^ATTACK Agent%[%d%d%]$"))
        assert.is_nil(wolves[tonumber(w:match("%d+"))])
      end
    end)

    it("attacks the seer who found a werewolf and spares the fake one", function()
      local i = info{n = 15, me = 2, role = "WEREWOLF", day = 1, roleMap = wolves, talks = {
        talk(5, P.comingout(5, "SEER"), 1, 0), talk(5, P.divined(9, "WEREWOLF"), 1, 1),
        talk(6, P.comingout(6, "SEER"), 1, 2), talk(6, P.divined(9, "HUMAN"), 1, 3)}}
      local ag = start(i, 15)
      assert.are.equal("ATTACK Agent[05]", ag:whisper())
      assert.are.equal(5, ag:attack())
      assert.are_not.equal(6, ag:vote())
    end)

    it("adopts a fellow's proposal that is as good as its own", function()
      for seed = 1, 20 do
        math.randomseed(seed)
        local i = info{n = 15, me = 14, role = "WEREWOLF", day = 1, roleMap = wolves,
          whispers = {talk(9, P.attack(11), 1, 0)}}
        local ag = start(i, 15)
        assert.are.equal("AGREE WHISPER day1 ID:0", ag:whisper())
        assert.are.equal("Over", ag:whisper())
        assert.are.equal(11, ag:attack())
      end
    end)

    it("votes with the village against a fellow it cannot save", function()
      local talks = {}
      for k, a in ipairs{1, 3, 4, 5, 6, 7, 8, 10} do talks[#talks + 1] = talk(a, P.vote(9), 1, k) end
      local i = info{n = 15, me = 2, role = "WEREWOLF", day = 1, roleMap = wolves, talks = talks}
      assert.are.equal(9, start(i, 15):vote())
    end)

    it("says nothing but Over in the first night's whisper", function()
      local i = info{n = 15, me = 2, role = "WEREWOLF", day = 0, roleMap = wolves}
      local ag = load_sample()
      ag:initialize(i, setting(15))
      ag:update(i)
      ag:dayStart()
      ag:update(i)
      assert.are.equal("Over", ag:whisper())
    end)
  end)

  describe("as the possessed", function()
    it("claims seer and reports a made-up result", function()
      local i = info{n = 5, me = 4, role = "POSSESSED", day = 1}
      local ag = start(i)
      local said = talk_all(ag, i)
      assert.are.equal("COMINGOUT Agent[04] SEER", said[1])
      assert.is_truthy(said[2]:match("^DIVINED Agent%[0[1235]%] %u+$"))
    end)

    it("calls the rival seer a werewolf and that seer's werewolf human", function()
      local i1 = info{n = 15, me = 4, role = "POSSESSED", day = 1}
      local ag = start(i1, 15)
      talk_all(ag, i1)
      local i2 = info{n = 15, me = 4, role = "POSSESSED", day = 2, dead = {1, 2}, talks = {
        talk(8, P.comingout(8, "SEER"), 2, 0), talk(8, P.divined(10, "WEREWOLF"), 2, 1)}}
      ag:update(i2)
      ag:dayStart()
      local said = talk_all(ag, i2)
      assert.are.equal("DIVINED Agent[08] WEREWOLF", said[1])
      assert.are_not.equal(10, ag:vote())
    end)
  end)

  it("only ever says valid protocol text and legal targets", function()
    -- Many short games' worth of calls for every role, with random claims,
    -- results and votes heard in talk.
    local roles = {"VILLAGER", "SEER", "MEDIUM", "BODYGUARD", "WEREWOLF", "POSSESSED"}
    local sentences = {
      function(a, t) return P.comingout(a, roles[t % 6 + 1]) end,
      function(_, t) return P.divined(t, t % 2 == 0 and "HUMAN" or "WEREWOLF") end,
      function(_, t) return P.identified(t, t % 3 == 0 and "HUMAN" or "WEREWOLF") end,
      function(_, t) return P.vote(t) end,
      function(_, t) return P.estimate(t, "WEREWOLF") end,
      function(_, t) return P.request(P.ANY, P.vote(t)) end,
    }
    for seed = 1, 60 do
      math.randomseed(seed)
      local n = seed % 2 == 0 and 15 or 5
      local role = roles[seed % 6 + 1]
      if n == 5 and (role == "MEDIUM" or role == "BODYGUARD") then role = "VILLAGER" end
      local me = seed % n + 1
      local roleMap = {}
      if role == "WEREWOLF" and n == 15 then roleMap[me % n + 1] = "WEREWOLF" end
      local ag = load_sample()
      local dead = {}
      local i0 = info{n = n, me = me, role = role, day = 0, roleMap = roleMap}
      ag:initialize(i0, setting(n))
      ag:update(i0)
      ag:dayStart()
      for day = 1, 4 do
        local talks = {}
        local i = info{n = n, me = me, role = role, day = day, dead = dead, roleMap = roleMap, talks = talks,
          divineResult = role == "SEER" and {agent = me, day = day - 1, target = math.random(n),
            result = "WEREWOLF"} or nil,
          mediumResult = role == "MEDIUM" and day > 1 and {agent = me, day = day - 1, target = dead[1] or 1,
            result = "HUMAN"} or nil}
        ag:update(i)
        ag:dayStart()
        for k = 1, 12 do
          local speaker = math.random(n)
          if i.statusMap[speaker] == "ALIVE" then
            talks[#talks + 1] = talk(speaker, sentences[math.random(#sentences)](speaker, math.random(n)), day, k)
          end
          ag:update(i)
          local text = ag:talk()
          assert.is_true(valid(text, n), text)
          assert.is_nil(text:match("^ATTACK"), "ATTACK said in public talk")
        end
        ag:update(i)
        local v = ag:vote()
        assert.is_true(v ~= me and i.statusMap[v] == "ALIVE", "vote " .. tostring(v))
        if role == "WEREWOLF" then
          ag:update(i)
          local w = ag:whisper()
          assert.is_true(valid(w, n), w)
          ag:update(i)
          local a = ag:attack()
          assert.is_true(a ~= me and i.statusMap[a] == "ALIVE" and roleMap[a] ~= "WEREWOLF")
        elseif role == "SEER" then
          ag:update(i)
          local d = ag:divine()
          assert.is_true(d ~= me and i.statusMap[d] == "ALIVE")
        elseif role == "BODYGUARD" then
          ag:update(i)
          local g = ag:guard()
          assert.is_true(g ~= me and i.statusMap[g] == "ALIVE")
        end
        -- someone other than this agent dies each day, while enough are left
        local alive = {}
        for a = 1, n do if i.statusMap[a] == "ALIVE" and a ~= me then alive[#alive + 1] = a end end
        if #alive > 3 then dead[#dead + 1] = alive[math.random(#alive)] end
      end
    end
  end)
end)
