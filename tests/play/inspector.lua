-- inspector.lua: an agent that checks, at every call, that the info the host
-- hands it has the documented shape and shows no more than its role may
-- know; any violation raises an error, which the test sees as a fault.
local P = require "aiwolf.protocol"
local agent = {}

local function check(cond, msg, ...)
  if not cond then error(string.format(msg, ...), 2) end
end

local function list(t, what)
  check(type(t) == "table", "%s is a %s", what, type(t))
  local n = 0
  for k in pairs(t) do n = n + 1; check(math.type(k) == "integer", "%s has key %s", what, tostring(k)) end
  check(n == #t, "%s is not a sequence", what)
  return t
end

function agent:initialize(info, setting)
  check(math.type(setting.playerNum) == "integer" and setting.playerNum >= 3, "playerNum")
  local total = 0
  for _, n in pairs(setting.roleNumMap) do total = total + n end
  check(total == setting.playerNum, "roleNumMap adds up to %d", total)
  check(type(setting.randomSeed) == "number", "randomSeed")
  self.n = setting.playerNum
  self.me = info.agent
  self.role = info.role
  self:check_info(info)
end

function agent:check_info(info)
  check(info.agent == self.me and info.role == self.role, "agent/role changed")
  check(info.roleMap[self.me] == self.role, "roleMap lacks my role")
  for a, r in pairs(info.roleMap) do
    check(a == self.me or self.finishing or (self.role == "WEREWOLF" and r == "WEREWOLF"),
          "%s sees the role of %d (%s)", self.role, a, r)
  end
  local alive = 0
  for a = 1, self.n do
    local s = info.statusMap[a]
    check(s == "ALIVE" or s == "DEAD", "statusMap[%d] = %s", a, tostring(s))
    if s == "ALIVE" then alive = alive + 1 end
  end
  list(info.talkList, "talkList")
  for i, t in ipairs(info.talkList) do
    check(t.idx == i - 1 and t.day == info.day, "talk %d has idx %d day %d", i, t.idx, t.day)
    check(type(t.text) == "string" and math.type(t.agent) == "integer", "talk %d fields", i)
    if t.parsed then
      check(P.print(t.parsed) == P.normalize(t.text), "parsed talk %q prints as %q", t.text, P.print(t.parsed))
    end
  end
  list(info.whisperList, "whisperList")
  if self.role ~= "WEREWOLF" then
    check(#info.whisperList == 0 and next(info.remainWhisperMap) == nil, "%s sees whispers", self.role)
    check(info.attackedAgent == nil and #info.attackVoteList == 0, "%s sees the attack", self.role)
  end
  check(self.role == "SEER" or info.divineResult == nil, "%s sees a divination", self.role)
  check(self.role == "MEDIUM" or info.mediumResult == nil, "%s sees a medium result", self.role)
  check(self.role == "BODYGUARD" or info.guardedAgent == nil, "%s sees the guard", self.role)
  if info.divineResult then
    check(info.divineResult.agent == self.me, "divineResult of someone else")
    check(info.divineResult.result == "HUMAN" or info.divineResult.result == "WEREWOLF", "divine result")
  end
  for _, v in ipairs(list(info.voteList, "voteList")) do
    check(v.agent >= 1 and v.agent <= self.n and v.target >= 1 and v.target <= self.n, "vote out of range")
  end
  list(info.lastDeadAgentList, "lastDeadAgentList")
  list(info.existingRoleList, "existingRoleList")
  self.info = info
  self.alive = alive
end

function agent:update(info) self:check_info(info) end

function agent:talk()
  check(self.info.statusMap[self.me] == "ALIVE", "a dead agent asked to talk")
  local t = self.info.talkList
  if #t > 0 and math.random() < 0.5 then return tostring(P.agree("TALK", self.info.day, t[#t].idx)) end
  return "Over"
end

function agent:whisper()
  check(self.role == "WEREWOLF", "%s asked to whisper", self.role)
  return "Over"
end

local function other(self, humans_only)
  for a = 1, self.n do
    if a ~= self.me and self.info.statusMap[a] == "ALIVE"
       and not (humans_only and self.info.roleMap[a] == "WEREWOLF") then return a end
  end
end

function agent:vote() return other(self) end
function agent:divine() check(self.role == "SEER", "divine asked of %s", self.role); return other(self) end
function agent:guard() check(self.role == "BODYGUARD", "guard asked of %s", self.role); return other(self) end
function agent:attack() check(self.role == "WEREWOLF", "attack asked of %s", self.role); return other(self, true) end

function agent:finish()
  for a = 1, self.n do
    check(self.info.roleMap[a] ~= nil, "finish: the role of %d is not revealed", a)
  end
end

-- update() before finish() reveals every role: allow it from then on.
local update = agent.update
function agent:update(info)
  if next(info.roleMap, nil) ~= nil then
    local revealed = 0
    for _ in pairs(info.roleMap) do revealed = revealed + 1 end
    if revealed == self.n then self.finishing = true end
  end
  update(self, info)
end

return agent
