-- A contest entry that plays against its own team where it knows how: as a
-- werewolf it says so and votes for a fellow werewolf; as the possessed it
-- says so. Otherwise it plays at random. It loses clearly more than the
-- sample agents, so the skill rating separates it from them
-- (tests/contest/contest_rating.sh: --until-separated stops).
local agent = {}

local function id(a) return string.format("Agent[%02d]", a) end

function agent:getName() return "traitor" end
function agent:update(info) self.info = info end
function agent:dayStart() self.talked = false end

local function living(self, keep)
  local info, out = self.info, {}
  for a = 1, #info.statusMap do
    if info.statusMap[a] == "ALIVE" and a ~= info.agent and keep(info.roleMap[a]) then out[#out + 1] = a end
  end
  return out
end

local function pick(list)
  if #list == 0 then return nil end
  return list[math.random(#list)]
end

function agent:talk()
  if self.talked then return "Over" end
  self.talked = true
  local role = self.info.roleMap[self.info.agent]
  if role == "WEREWOLF" or role == "POSSESSED" then return "COMINGOUT " .. id(self.info.agent) .. " " .. role end
  return "Over"
end

function agent:whisper() return "Over" end

function agent:vote()
  local fellows = living(self, function(r) return r == "WEREWOLF" end)
  if self.info.roleMap[self.info.agent] == "WEREWOLF" and #fellows > 0 then return pick(fellows) end
  return pick(living(self, function() return true end))
end

function agent:divine() return pick(living(self, function() return true end)) end
function agent:guard() return pick(living(self, function() return true end)) end
function agent:attack() return pick(living(self, function(r) return r ~= "WEREWOLF" end)) end

return agent
