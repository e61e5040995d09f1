-- An innocent agent that reads the clock and the calendar in every call
-- (os.time, os.date in both zones) and plays at random: beside any attack,
-- it must never have a fault.
local P = require "aiwolf.protocol"
local agent = {}
local function touch()
  local now = os.time()
  assert(type(os.date("%Y-%m-%d %H:%M:%S", now)) == "string")
  assert(os.date("!*t", now).year >= 2020)
  assert(os.time({ year = 2024, month = 2, day = 30, hour = 0 }) > 0)
  return os.clock()
end
local function others(info)
  local t = {}
  for a = 1, #info.statusMap do
    if a ~= info.agent and info.statusMap[a] == "ALIVE" then t[#t + 1] = a end
  end
  return t
end
local function pick(info)
  local t = others(info)
  return t[math.random(#t)]
end
function agent:update(info) self.info = info touch() end
function agent:dayStart() touch() end
function agent:talk() touch() return P.print(P.over()) end
function agent:whisper() touch() return "Over" end
function agent:vote() touch() return pick(self.info) end
function agent:divine() touch() return pick(self.info) end
function agent:guard() touch() return pick(self.info) end
function agent:attack()
  touch()
  local t = {}
  for _, a in ipairs(others(self.info)) do
    if self.info.roleMap[a] ~= "WEREWOLF" then t[#t + 1] = a end
  end
  return t[math.random(#t)]
end
function agent:finish() touch() end
return agent
