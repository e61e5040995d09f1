-- What the leak agents share: legal, passive play (say Over, vote and act
-- on the first other living agent), the werewolf's seat once roles are
-- revealed, and a seat written into os.clock and read from it.
local M = {}

local function other(info, me)
  for a = 1, #info.statusMap do
    if a ~= me and info.statusMap[a] == "ALIVE" then return a end
  end
end

-- Gives agent the methods of passive play; it keeps info in self.info and
-- its own seat in self.me (set in its initialize). An update it has already
-- is kept.
function M.play(agent)
  agent.update = agent.update or function(self, info) self.info = info end
  function agent:talk() return "Over" end
  function agent:whisper() return "Over" end
  function agent:vote() return other(self.info, self.me) end
  function agent:divine() return other(self.info, self.me) end
  function agent:guard() return other(self.info, self.me) end
  function agent:attack()
    for a = 1, #self.info.statusMap do
      if self.info.statusMap[a] == "ALIVE" and self.info.roleMap[a] ~= "WEREWOLF" then return a end
    end
  end
  return agent
end

-- The first werewolf's seat in info.roleMap (everyone's role at finish).
function M.wolf(info)
  for a = 1, #info.statusMap do
    if info.roleMap[a] == "WEREWOLF" then return a end
  end
end

-- os.clock() modulo period, cut in n slots, one a seat. Writing burns CPU
-- until the clock lies 1 to 6 ms into the slot of seat (what runs until the
-- reader reads takes well under 5 ms), for at most one period and 10 ms.
function M.write_seat(seat, n, period)
  local width, start = period / n, os.clock()
  while os.clock() - start < period + 0.01 do
    local into = os.clock() % period - (seat - 1) * width
    if into >= 0.001 and into < 0.006 then return end
  end
end

function M.read_seat(n, period)
  return math.floor((os.clock() % period) / (period / n)) + 1
end

return M
