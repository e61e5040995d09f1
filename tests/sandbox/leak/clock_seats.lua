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
local agent = {}

local PERIOD = 0.1

function agent:getName() return "seatleak" end

function agent:initialize(info, setting)
  self.n = setting.playerNum
  self.me = info.agent
  self.wolf = info.roleMap[self.me] == "WEREWOLF"
  if self.wolf then
    local width = PERIOD / self.n
    local start = os.clock()
    while os.clock() - start < 2 * PERIOD do
      local into = os.clock() % PERIOD - (self.me - 1) * width
      if into >= 0.001 and into < 0.006 then break end
    end
  end
end

function agent:update(info)
  self.info = info
  if not self.guess then
    self.guess = math.floor((os.clock() % PERIOD) / (PERIOD / self.n)) + 1
  end
end

function agent:talk() return "Over" end
function agent:whisper() return "Over" end

local function other(info, me)
  for a = 1, #info.statusMap do
    if a ~= me and info.statusMap[a] == "ALIVE" then return a end
  end
end
function agent:vote() return other(self.info, self.me) end
function agent:divine() return other(self.info, self.me) end
function agent:guard() return other(self.info, self.me) end
function agent:attack()
  for a = 1, #self.info.statusMap do
    if self.info.statusMap[a] == "ALIVE" and self.info.roleMap[a] ~= "WEREWOLF" then return a end
  end
end

function agent:finish()
  if self.wolf then return end
  local wolf
  for a = 1, self.n do
    if self.info.roleMap[a] == "WEREWOLF" then wolf = a break end
  end
  print(string.format("leak guess %d wolf %d", self.guess, wolf))
end

return agent
