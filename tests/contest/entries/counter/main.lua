-- A contest entry that says, through a fault note, how many games its
-- instance has played: fresh instances (seed2015) always say 1; the
-- regulation's sets keep one instance, which counts up. It also checks,
-- like tests/play/inspector.lua, that each game's info is its own.
local agent = {}
function agent:getName() return "counter" end
function agent:initialize(info, setting)
  self.games = (self.games or 0) + 1
  self.day = -1
  self.me = info.agent
  error("instance game " .. self.games .. " as Agent[" .. info.agent .. "] role " .. info.role)
end
function agent:update(info)
  if info.agent ~= self.me then error("info.agent changed within a game") end
  if info.day < self.day then error("the day went back within a game") end
  self.day = info.day
  for _, t in ipairs(info.talkList) do
    if t.day ~= info.day then error("a talk of another day in talkList") end
  end
end
function agent:talk() return "Over" end
return agent
