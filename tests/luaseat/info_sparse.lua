-- info_sparse.lua: reads a random part of its info at random calls (from
-- its own seed), in a random order, some fields twice, sometimes all of it
-- through pairs(info); prints each value it read as "@i" (the field's
-- number in tests/luaseat/test_info.c's line, 22 for the count of pairs)
-- and the value on the next lines, which the wrapper compares with the view.
-- This catches a list made when first read (luaseat.c, lazy fields) that is
-- stale or missing. After reading, it sometimes writes a field (a list not
-- read yet in this call, too): it must read back its own value, and the
-- next call must hold the truth again. It sometimes keeps remainTalkMap or
-- remainWhisperMap and reads the kept table in a later call instead of
-- info's field (both are one table all game, updated in place).
-- Each game, an instance plays one of three ways (from its seed): with
-- initialize and update all game; "late", with neither until some talk()
-- adds update (an agent that takes no info is not given any: the first
-- info it gets must be the whole view); or "quits", dropping update at
-- some talk() and from then on reading, in talk(), the info it kept (the
-- host still brings it up to date before every call).
local P = require "aiwolf.protocol"
local agent = {}

local names = {
  "agent", "day", "role", "statusMap", "roleMap", "remainTalkMap", "remainWhisperMap", "existingRoleList",
  "talkList", "whisperList", "voteList", "latestVoteList", "executedAgent", "latestExecutedAgent",
  "lastDeadAgentList", "divineResult", "mediumResult", "attackedAgent", "guardedAgent", "attackVoteList",
  "latestAttackVoteList",
}
local lazy = {"talkList", "whisperList", "voteList", "latestVoteList", "attackVoteList", "latestAttackVoteList",
  "remainTalkMap", "remainWhisperMap"}

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

local function talks(l)
  local out = {}
  for i, t in ipairs(l) do
    local p = t.idx % 2 == 0 and (t.parsed == nil and "-" or P.print(t.parsed)) or "?"
    out[i] = t.agent .. ":" .. t.day .. ":" .. t.idx .. ":" .. t.turn .. ":" .. t.text .. ":" .. p
  end
  return table.concat(out, "\n") .. "#" .. count(l)
end

local function judge(j)
  if j == nil then return "-" end
  return j.agent .. ">" .. j.target .. "@" .. j.day .. "=" .. j.result .. "#" .. count(j)
end

local function opt(v) return v == nil and "-" or tostring(v) end

local function show(self, info, i)
  local k = names[i]
  local v
  if (i == 6 or i == 7) and self.kept[i] and math.random() < 0.5 then
    -- the map as kept from an earlier call, read without going through
    -- info: the host must have brought it up to date all the same
    v = self.kept[i]
  else
    v = info[k]
    if i == 6 or i == 7 then self.kept[i] = v end
  end
  if i <= 3 then return tostring(v) end
  if i <= 7 then return map(v, self.n) end
  if i == 8 or i == 15 then return table.concat(v, ",") end
  if i == 9 or i == 10 then return talks(v) end
  if i == 16 or i == 17 then return judge(v) end
  if i == 11 or i == 12 or i == 20 or i == 21 then return votes(v) end
  return opt(v)
end

local function call(self, info)
  self.n = self.n or #info.statusMap
  self.kept = self.kept or {}
  assert(getmetatable(info) == "info", "info's metatable is not protected")
  assert(not pcall(setmetatable, info, {}), "setmetatable on info worked")
  assert(debug == nil, "the sandbox has a debug library")
  self.calls = (self.calls or 0) + 1
  local out = {}
  if math.random() < 0.7 then
    local p = ({0.05, 0.2, 0.5, 1})[math.random(4)]
    local order = {}
    for i = 1, #names do
      if math.random() < p then order[#order + 1] = i end
    end
    for i = #order, 2, -1 do
      local j = math.random(i)
      order[i], order[j] = order[j], order[i]
    end
    local all = math.random() < 0.15 and math.random(0, #order) or -1
    if all == 0 then out[#out + 1] = "@22\n" .. count(info) end
    for n, i in ipairs(order) do
      out[#out + 1] = "@" .. i .. "\n" .. show(self, info, i)
      if math.random() < 0.2 then out[#out + 1] = "@" .. i .. "\n" .. show(self, info, i) end
      if n == all then out[#out + 1] = "@22\n" .. count(info) end
    end
  end
  if #out > 0 then print(table.concat(out, "\n")) end
  -- Writes, checked at once; the next call must not keep them.
  local w = math.random(10)
  local k = lazy[math.random(#lazy)]
  if w == 1 then
    info[k] = nil
    assert(info[k] == nil, "a list written nil came back")
    assert(count(info) >= 14)
    assert(info[k] == nil, "a list written nil came back after pairs")
  elseif w == 2 then
    local mine = {}
    info[k] = mine
    assert(rawequal(info[k], mine), "a list written is not the agent's")
    count(info)
    assert(rawequal(info[k], mine), "a list written is not the agent's after pairs")
  elseif w == 3 then -- a talk list's length changed: a new list next call
    table.insert(info[lazy[math.random(2)]], {agent = 1, day = 0, idx = 99, turn = 0, text = "Over"})
  elseif w == 4 then -- (a vote list changed inside stays so while the game does not change it)
    table.remove(info[lazy[math.random(2)]], 1)
  elseif w == 5 then
    info.day, info.role = 99, "FOX"
  end
  self.info = info
end

function agent:initialize(info, setting)
  self.n = setting.playerNum
  call(self, info)
end
function agent:update(info) call(self, info) end

local update = agent.update
local mode = ({"all", "late", "quits"})[math.random(3)]
if mode == "late" then agent.initialize, agent.update = nil, nil end

function agent:talk()
  if mode == "late" and not agent.update and math.random() < 0.3 then
    agent.update = update -- called from the next request on
  elseif mode == "quits" and agent.update and math.random() < 0.2 then
    agent.update = nil
  elseif mode == "quits" and not agent.update then
    call(self, self.info)
  end
  return "ESTIMATE Agent[0" .. math.random(5) .. "] WEREWOLF"
end
function agent:whisper() return "ATTACK Agent[03]" end

return agent
