-- info_dump.lua: prints, at every call, one line with everything its info
-- holds (tests/luaseat/test_info.c builds the same line from the view the
-- host had, and compares). A talk's parsed tree is read for even idx only
-- during its day; the odd ones are read the next day, from the list kept
-- since (the host's tree is gone by then: it is parsed again). Agents with
-- an odd number instead vandalize their info after each call (top-level
-- fields, the lists' lengths): the next call must still hold the truth.
local P = require "aiwolf.protocol"
local T = require "aiwolf.talks"
local agent = {}

local function count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

local function map(t, n)
  local out = {}
  for a = 1, n do
    local v = t[a]
    out[a] = v == nil and "-" or tostring(v)
  end
  return table.concat(out, ",") .. "#" .. count(t)
end

local function votes(l)
  local out = {}
  for i, v in ipairs(l) do out[i] = v.agent .. ">" .. v.target .. "@" .. v.day end
  return table.concat(out, ",") .. "#" .. count(l)
end

local function parsed(t)
  local p = t.parsed
  return p == nil and "-" or P.print(p)
end

local function talks(l)
  local out = {}
  for i, t in ipairs(l) do
    out[i] = t.agent .. ":" .. t.day .. ":" .. t.idx .. ":" .. t.turn .. ":" .. t.text .. ":" ..
             (t.idx % 2 == 0 and parsed(t) or "?")
  end
  return table.concat(out, "\n") .. "#" .. count(l)
end

-- The day's talks (whispers) read through aiwolf.talks, in talks()'s form:
-- each call reads only those past the ones read before (a new day starts
-- over), the trees during their day; then the list read again from a few
-- points in it (0 included) and past its end must give the same. Tables that are not this
-- call's info get nothing.
local function host(self, info, whisper)
  local key = whisper and "host_whispers" or "host_talks"
  local acc = self[key]
  if not acc or acc.day ~= info.day then
    acc = {day = info.day}
    self[key] = acc
  end
  for i, agent, day, idx, turn, text in T.talks(info, #acc, whisper) do
    assert(i == #acc + 1, "talks gave i out of order")
    local tree = idx % 2 == 0 and T.tree(info, i, whisper)
    acc[i] = agent .. ":" .. day .. ":" .. idx .. ":" .. turn .. ":" .. text .. ":" ..
             (idx % 2 == 1 and "?" or tree == nil and "-" or P.print(tree))
  end
  local n = T.count(info, whisper)
  assert(n == #acc, "count differs from what talks gave")
  for _, from in ipairs({0, n // 3, n > 0 and n - 1 or 0, n, n + 1}) do
    local k = from
    for i, agent, day, idx, turn, text in T.talks(info, from, whisper) do
      k = k + 1
      assert(i == k and acc[i]:find(agent .. ":" .. day .. ":" .. idx .. ":" .. turn .. ":" .. text .. ":", 1, true) == 1,
             "talks from " .. from .. " differs")
    end
    assert(k == (from > n and from or n), "talks from " .. from .. " ended at " .. k)
  end
  assert(T.count({}, whisper) == nil and T.tree({}, 1, whisper) == nil and T.talks({}, 0, whisper)({}, 0) == nil,
         "aiwolf.talks answered for a table that is not info")
  assert(T.count(info.roleMap, whisper) == nil, "aiwolf.talks answered for another of the host's tables")
  return table.concat(acc, "\n") .. "#" .. n
end

local function judge(j)
  if j == nil then return "-" end
  return j.agent .. ">" .. j.target .. "@" .. j.day .. "=" .. j.result .. "#" .. count(j)
end

local function opt(v) return v == nil and "-" or tostring(v) end

local function dump(self, info)
  local n = #info.statusMap
  local old = ""
  if self.kept and self.kept_day ~= info.day then
    local out = {}
    for _, l in ipairs(self.kept) do
      for _, t in ipairs(l) do
        if t.idx % 2 == 1 then out[#out + 1] = t.idx .. "=" .. parsed(t) end
      end
    end
    old = "\nold" .. (#out > 0 and "\n" or "") .. table.concat(out, "\n")
    self.kept = nil
  end
  print(table.concat({
    "D", info.agent, info.day, info.role, map(info.statusMap, n), map(info.roleMap, n),
    map(info.remainTalkMap, n), map(info.remainWhisperMap, n), table.concat(info.existingRoleList, ","),
    talks(info.talkList), talks(info.whisperList), votes(info.voteList), votes(info.latestVoteList),
    opt(info.executedAgent), opt(info.latestExecutedAgent), table.concat(info.lastDeadAgentList, ","),
    judge(info.divineResult), judge(info.mediumResult), opt(info.attackedAgent), opt(info.guardedAgent),
    votes(info.attackVoteList), votes(info.latestAttackVoteList), count(info),
    host(self, info, false), host(self, info, true)}, "\n") .. old)
  if info.agent % 2 == 0 and (not self.kept or self.kept_day == info.day) then
    self.kept, self.kept_day = {info.talkList, info.whisperList}, info.day
  end
  if self.info then assert(self.info == info, "info is not the same table all game") end
  self.info = info
end

local function vandalize(info)
  info.day, info.role, info.executedAgent = 99, "FOX", 1
  info.statusMap, info.divineResult, info.mediumResult = {}, nil, {agent = 1}
  info.voteList = {{agent = 1, day = 0, target = 2}}
  rawset(info, "agent", 99) -- raw, past info's __newindex
  rawset(info, "remainTalkMap", {})
  info.talkList[#info.talkList + 1] = {agent = 1, day = 0, idx = 99, turn = 0, text = "Over"}
  table.remove(info.whisperList)
end

local function call(self, info)
  dump(self, info)
  if info.agent % 2 == 1 then vandalize(info) end
end

function agent:initialize(info) call(self, info) end
function agent:update(info) call(self, info) end
function agent:talk()
  local t = self.info.talkList
  return "ESTIMATE Agent[0" .. (1 + #t % 5) .. "] WEREWOLF"
end
function agent:whisper() return "ATTACK Agent[03]" end

return agent
