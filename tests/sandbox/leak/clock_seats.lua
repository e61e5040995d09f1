-- The werewolf tells the other seats who it is, through os.clock, in the
-- same game (seats of one agent file colluding across teams, or any seat
-- passing what only it knows).
--
-- While os.clock was the process's CPU time, the werewolf burnt CPU in
-- initialize until os.clock() modulo PERIOD lay early in its own seat's
-- slot, and every other seat read the slot at its first update after
-- initialize: right every time. With os.clock the seat's own CPU time, a
-- reader sees only its own few microseconds (slot 1: right when the
-- werewolf sits there, chance).
--
-- Every seat but the werewolf prints "leak guess G wolf W" at the end;
-- tests/sandbox/leak.sh counts the hits.
local passive = require "passive"
local agent = {}

local PERIOD = 0.1

function agent:getName() return "seatleak" end

function agent:initialize(info, setting)
  self.n = setting.playerNum
  self.me = info.agent
  self.wolf = info.roleMap[self.me] == "WEREWOLF"
  if self.wolf then passive.write_seat(self.me, self.n, PERIOD) end
end

function agent:update(info)
  self.info = info
  if not self.guess then self.guess = passive.read_seat(self.n, PERIOD) end
end

function agent:finish()
  if self.wolf then return end
  local wolf = passive.wolf(self.info)
  print(string.format("leak guess %d wolf %d", self.guess, wolf))
end

return passive.play(agent)
