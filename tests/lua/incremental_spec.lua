-- The base agent reads incrementally (each talk once, each day's list from
-- its start, deaths and results only when they change). These specs check
-- that against the plain way — rescanning everything heard so far on every
-- call — on the talk and whisper sequences of the recorded official games
-- (tests/fixtures/official/tcp/*/game.log), handed out in uneven pieces, and
-- check the other incremental parts on small hand-made cases.
local A = require "aiwolf.agent"
local P = require "aiwolf.protocol"

-- Protocol text to a tree, with the builders of aiwolf.protocol (plain Lua
-- has no C parser). Covers every form the official sample agents say.
local function parse(text)
  local toks = {}
  for tok in text:gsub("%(", " ( "):gsub("%)", " ) "):gmatch("%S+") do toks[#toks + 1] = tok end
  local i = 0
  local function next_tok() i = i + 1; return toks[i] end
  local function agent(tok)
    if tok == "ANY" then return P.ANY end
    local digits = tok:match("^Agent%[(%d+)%]$")
    assert(digits, "agent expected: " .. tok)
    return tonumber(digits)
  end
  local sentence
  local function operand()
    assert(next_tok() == "(", "( expected in " .. text)
    local s = sentence()
    assert(next_tok() == ")", ") expected in " .. text)
    return s
  end
  function sentence()
    local tok, subject = next_tok(), nil
    if tok:match("^Agent%[") or (tok == "ANY" and i == 1) then subject, tok = agent(tok), next_tok() end
    local s
    if tok == "Over" then s = P.over()
    elseif tok == "Skip" then s = P.skip()
    elseif tok == "ESTIMATE" or tok == "COMINGOUT" then s = P[tok:lower()](agent(next_tok()), next_tok())
    elseif tok == "DIVINED" or tok == "IDENTIFIED" then s = P[tok:lower()](agent(next_tok()), next_tok())
    elseif tok == "REQUEST" or tok == "INQUIRE" then
      local target = agent(next_tok())
      s = P[tok:lower()](target, operand())
    elseif tok == "DAY" then
      local d = tonumber(next_tok())
      s = P.day(d, operand())
    elseif tok == "BECAUSE" or tok == "AND" or tok == "OR" or tok == "XOR" or tok == "NOT" then
      local args = {}
      while toks[i + 1] == "(" do args[#args + 1] = operand() end
      s = P[({BECAUSE = "because", AND = "and_", OR = "or_", XOR = "xor", NOT = "not_"})[tok]](table.unpack(args))
    elseif tok == "AGREE" or tok == "DISAGREE" then
      local kind, day, id = next_tok(), next_tok(), next_tok()
      s = P[tok:lower()](kind, tonumber(day:match("%d+")), tonumber(id:match("%d+")))
    else
      s = P[tok:lower()](agent(next_tok())) -- VOTE, ATTACK, DIVINATION, GUARD, ...
    end
    if subject ~= nil then s.subject = subject end
    return s
  end
  local s = sentence()
  assert(i == #toks, "trailing text in " .. text)
  assert(P.print(s) == text, "parsed " .. text .. " as " .. P.print(s))
  return s
end

-- A recorded game: {days = {[d] = {status = {...}, talks = {...}, whispers = {...}}}, n}.
local function read_game(path)
  local game, n = {}, 0
  for line in io.lines(path) do
    local f = {}
    for x in (line .. ","):gmatch("([^,]*),") do f[#f + 1] = x end
    local d = tonumber(f[1])
    local day = game[d]
    if not day then day = {status = {}, talks = {}, whispers = {}}; game[d] = day end
    if f[2] == "status" then
      local a = tonumber(f[3])
      day.status[a] = f[5]
      if a > n then n = a end
    elseif f[2] == "talk" or f[2] == "whisper" then
      local list = f[2] == "talk" and day.talks or day.whispers
      local text = table.concat(f, ",", 6)
      list[#list + 1] = {agent = tonumber(f[5]), day = d, idx = tonumber(f[3]), turn = tonumber(f[4]),
        text = text, parsed = parse(text)}
    end
  end
  return game, n
end

-- What the base agent keeps from talk, worked out the plain way: every day's
-- whole list so far, every time, with the rules of docs/agents.md.
local function rescan(days_heard)
  local r = {claims = {}, claimants = {}, reports = {}, declared = {}, estimates = {}, attackProposals = {}}
  local reported = {}
  for _, day in ipairs(days_heard) do
    r.declared, r.estimates, r.attackProposals = {}, {}, {}
    for _, t in ipairs(day.talks) do
      for _, x in ipairs(A.sentences(t)) do
        local who, s, v = x.who, x.s, x.s.verb
        if x.asserted and math.type(who) == "integer" then
          if v == "COMINGOUT" and s.target == who and s.role ~= P.ANY then
            if not r.claims[who] then r.claimants[#r.claimants + 1] = who end
            r.claims[who] = s.role
          elseif (v == "DIVINED" or v == "IDENTIFIED") and math.type(s.target) == "integer" and s.species ~= P.ANY then
            local key = table.concat({who, v, s.target}, " ")
            if not reported[key] then
              reported[key] = true
              r.reports[#r.reports + 1] = {who = who, verb = v, target = s.target, species = s.species, day = t.day}
            end
          elseif v == "VOTE" and math.type(s.target) == "integer" then
            r.declared[who] = s.target
          elseif v == "ESTIMATE" and math.type(s.target) == "integer" then
            r.estimates[who] = r.estimates[who] or {}
            r.estimates[who][s.target] = s.role
          end
        end
      end
    end
    for _, t in ipairs(day.whispers) do
      for _, x in ipairs(A.sentences(t)) do
        if x.asserted and x.s.verb == "ATTACK" and math.type(x.s.target) == "integer"
           and math.type(x.who) == "integer" then
          r.attackProposals[#r.attackProposals + 1] = {who = x.who, target = x.s.target, idx = t.idx}
        end
      end
    end
  end
  return r
end

describe("aiwolf.agent reads incrementally", function()
  local logs = {}
  for path in io.popen("ls tests/fixtures/official/tcp/*/game.log"):lines() do logs[#logs + 1] = path end

  it("finds the recorded games", function()
    assert.is_true(#logs >= 9)
  end)

  for _, path in ipairs(logs) do
    it("keeps what a full rescan on every call keeps: " .. path, function()
      local game, n = read_game(path)
      local ag = A.new{}
      local heard, expected_heard = 0, 0
      function ag:onTalk() heard = heard + 1 end
      function ag:onWhisper() heard = heard + 1 end
      local roleMap = {[1] = "WEREWOLF", [2] = "WEREWOLF"} -- seat 1 sees whispers
      local function info(d, talks, whispers)
        return {agent = 1, day = d, role = "WEREWOLF", statusMap = game[d].status, roleMap = roleMap,
          talkList = talks, whisperList = whispers, voteList = {}, lastDeadAgentList = {}}
      end
      ag:initialize(info(0, {}, {}), {playerNum = n})
      local past, calls = {}, 0
      for d = 0, #game do
        -- One list per day, growing in uneven steps (0 to 6 entries, a call
        -- with nothing new included), as the host grows talkList.
        local src, talks, whispers = game[d], {}, {}
        local today = {talks = talks, whispers = whispers}
        past[#past + 1] = today
        local ti, wi, step = 0, 0, d
        repeat
          step = (step * 5 + 3) % 7
          for _ = 1, step do
            if ti < #src.talks then ti = ti + 1; talks[ti] = src.talks[ti]
            elseif wi < #src.whispers then wi = wi + 1; whispers[wi] = src.whispers[wi] end
          end
          ag:update(info(d, talks, whispers))
          calls = calls + 1
          local want = rescan(past)
          for _, field in ipairs({"claims", "claimants", "reports", "declared", "estimates", "attackProposals"}) do
            assert.are.same(want[field], ag[field], field .. " on day " .. d .. " after talk " .. ti)
          end
          assert.are.same(A.alive(ag.info), ag.alive)
          assert.are.same(A.others(ag.info), ag.others)
        until ti == #src.talks and wi == #src.whispers
        for _, t in ipairs(src.talks) do expected_heard = expected_heard + #A.sentences(t) end
        for _, t in ipairs(src.whispers) do expected_heard = expected_heard + #A.sentences(t) end
      end
      assert.are.equal(expected_heard, heard) -- every sentence once, whatever the steps
      assert.is_true(calls > #game)
    end)
  end

  it("reads the same info table updated in place, a new day clearing its lists", function()
    local ag = A.new{}
    local seen = {}
    function ag:onTalk(t, _, s) seen[#seen + 1] = t.day .. ":" .. t.idx .. ":" .. s.verb end
    local status = {"ALIVE", "ALIVE", "ALIVE", "ALIVE", "ALIVE"}
    local talks = {}
    local info = {agent = 1, day = 1, role = "VILLAGER", statusMap = status, roleMap = {[1] = "VILLAGER"},
      talkList = talks, whisperList = {}, voteList = {}, lastDeadAgentList = {}}
    ag:initialize(info, {})
    assert.are.same({1, 2, 3, 4, 5}, ag.alive) -- from initialize on
    assert.are.same({2, 3, 4, 5}, ag.others)
    talks[1] = {agent = 2, day = 1, idx = 0, turn = 0, parsed = P.vote(3)}
    ag:update(info)
    talks[2] = {agent = 3, day = 1, idx = 1, turn = 0, parsed = P.comingout(3, "SEER")}
    talks[3] = {agent = 4, day = 1, idx = 2, turn = 0, parsed = P.over()}
    ag:update(info)
    ag:update(info)
    assert.are.same({"1:0:VOTE", "1:1:COMINGOUT", "1:2:OVER"}, seen)
    assert.are.same({[2] = 3}, ag.declared)
    -- The next day: agent 3 was killed, the same list starts over.
    status[3] = "DEAD"
    info.day, info.lastDeadAgentList = 2, {3}
    for k = #talks, 1, -1 do talks[k] = nil end
    talks[1] = {agent = 4, day = 2, idx = 0, turn = 0, parsed = P.vote(2)}
    ag:update(info)
    assert.are.same({"1:0:VOTE", "1:1:COMINGOUT", "1:2:OVER", "2:0:VOTE"}, seen)
    assert.are.same({[4] = 2}, ag.declared)
    assert.are.same({[3] = "SEER"}, ag.claims)
    assert.are.same({1, 2, 4, 5}, ag.alive)
    assert.are.same({2, 4, 5}, ag.others)
    assert.are.equal(1, ag.killed[3])
  end)

  it("moves self.version with new facts only, not with today's declared votes", function()
    local ag = A.new{}
    local status = {"ALIVE", "ALIVE", "ALIVE", "ALIVE", "ALIVE"}
    local talks = {}
    local info = {agent = 1, day = 1, role = "VILLAGER", statusMap = status, roleMap = {[1] = "VILLAGER"},
      talkList = talks, whisperList = {}, voteList = {}, lastDeadAgentList = {}}
    ag:initialize(info, {})
    ag:update(info)
    local v = ag.version
    ag:update(info)
    assert.are.equal(v, ag.version) -- nothing new
    talks[1] = {agent = 2, day = 1, idx = 0, turn = 0, parsed = P.vote(3)}
    talks[2] = {agent = 3, day = 1, idx = 1, turn = 0, parsed = P.estimate(2, "WEREWOLF")}
    ag:update(info)
    assert.are.equal(v, ag.version) -- declared votes and estimates are today's talk
    talks[3] = {agent = 3, day = 1, idx = 2, turn = 0, parsed = P.comingout(3, "SEER")}
    ag:update(info)
    assert.is_true(ag.version > v)
    v = ag.version
    talks[4] = {agent = 3, day = 1, idx = 3, turn = 0, parsed = P.comingout(3, "SEER")} -- the same claim
    ag:update(info)
    assert.are.equal(v, ag.version)
    talks[5] = {agent = 3, day = 1, idx = 4, turn = 0, parsed = P.divined(2, "WEREWOLF")}
    ag:update(info)
    assert.is_true(ag.version > v)
    v = ag.version
    status[4] = "DEAD"
    info.latestExecutedAgent = 4
    ag:update(info)
    assert.is_true(ag.version > v)
    assert.are.same({2, 3, 5}, ag.others)
    v = ag.version
    -- a result comes with a new day (update looks at results, deaths and
    -- executions only when the day or latestExecutedAgent changed)
    info.day, info.divineResult = 2, {agent = 1, day = 1, target = 2, result = "WEREWOLF"}
    ag:update(info)
    assert.is_true(ag.version > v)
    v = ag.version
    ag:update(info)
    assert.are.equal(v, ag.version)
  end)

  it("lists sorted keys of any map the way a sort does", function()
    local function reference(map)
      local keys = {}
      for k in pairs(map) do keys[#keys + 1] = k end
      table.sort(keys, function(x, y)
        if type(x) ~= type(y) then return type(x) == "number" end
        return x < y
      end)
      return keys
    end
    math.randomseed(7)
    for _ = 1, 300 do
      local map = {}
      for _ = 1, math.random(0, 20) do
        local r = math.random(6)
        local k = r == 1 and math.random(-5, 5) or r == 2 and math.random() * 40 or r == 3 and
          ("k" .. math.random(30)) or r == 4 and math.random(1000) or math.random(18)
        map[k] = true
      end
      assert.are.same(reference(map), A.sorted_keys(map))
    end
  end)

  it("takes a table of scores in A.best", function()
    local best, top = A.best({1, 2, 3, 4}, {[2] = 5, [3] = 5, [4] = 1})
    assert.are.same({2, 3}, best)
    assert.are.equal(5, top)
    assert.are.same({}, (A.best({1}, {})))
    -- A higher score after ties and a tie after that: the list is cut to the best.
    best, top = A.best({1, 2, 3, 4, 5}, {[1] = 1, [2] = 1, [3] = 1, [4] = 7, [5] = 7})
    assert.are.same({4, 5}, best)
    assert.are.equal(7, top)
    best = A.best({1, 2, 3}, function(e) return e == 2 and 3 or nil end)
    assert.are.same({2}, best)
  end)

  it("passes Over and Skip over on their text, without their tree, unless a hook asks", function()
    -- Entries that make `parsed` when it is first read, as the host's do.
    local made = 0
    local function entry(agent, idx, tree)
      return setmetatable({agent = agent, day = 1, idx = idx, turn = 0, text = tostring(tree)}, {
        __index = function(_, k)
          if k == "parsed" then made = made + 1; return tree end
        end})
    end
    local talks = {entry(2, 0, P.over()), entry(3, 1, P.skip()), entry(4, 2, P.vote(2)),
      entry(5, 3, P.because(P.divined(3, "WEREWOLF"), P.vote(3)))}
    local info = {agent = 1, day = 1, role = "VILLAGER", statusMap = {"ALIVE", "ALIVE", "ALIVE", "ALIVE", "ALIVE"},
      roleMap = {[1] = "VILLAGER"}, talkList = talks, whisperList = {}, voteList = {}, lastDeadAgentList = {}}
    local ag = A.new{}
    ag:initialize(info, {})
    ag:update(info)
    assert.are.equal(2, made) -- the VOTE and the BECAUSE
    assert.are.same({[4] = 2, [5] = 3}, ag.declared)
    assert.are.equal(1, #ag.reports)
    local hooked, verbs = A.new{}, {}
    function hooked:onTalk(_, _, s) verbs[#verbs + 1] = s.verb end
    made = 0
    hooked:initialize(info, {})
    hooked:update(info)
    assert.are.equal(4, made)
    assert.are.same({"OVER", "SKIP", "VOTE", "BECAUSE", "DIVINED", "VOTE"}, verbs)
    assert.are.same({[4] = 2, [5] = 3}, hooked.declared)
  end)
end)
