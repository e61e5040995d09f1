-- The werewolf's seat from one game to the next through os.clock.
--
-- When os.clock was the process's CPU time, every seat of every game in one
-- process read the same clock, and any seat could move it by burning CPU.
-- So at the end of a game, where every role is revealed, this agent burns
-- CPU until os.clock() modulo PERIOD lies early in the slot of the
-- werewolf's seat; its copy in the next game of the process reads
-- os.clock() in initialize and takes that slot for the werewolf's seat.
-- Under `play --vs` the next game is the mirror of this one (same seed,
-- same roles by seat), so the guess is right every time: 20/20 at the
-- time. With os.clock the seat's own CPU time, the reading in initialize
-- is the few microseconds of its own load and initialize, and the guess
-- is always seat 1 (right when the werewolf is there: chance).
--
-- It prints "leak guess G wolf W" at the end of each game;
-- tests/sandbox/leak.sh counts the mirror games' hits.
local agent = {}

local PERIOD = 0.1 -- seconds of CPU time; a slot per seat

local function slot(t, n) return math.floor((t % PERIOD) / (PERIOD / n)) end

function agent:getName() return "clockleak" end

function agent:initialize(info, setting)
  self.n = setting.playerNum
  self.me = info.agent
  self.guess = slot(os.clock(), self.n) + 1
end

function agent:update(info) self.info = info end

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
  local wolf
  for a = 1, self.n do
    if self.info.roleMap[a] == "WEREWOLF" then wolf = a break end
  end
  print(string.format("leak guess %d wolf %d", self.guess, wolf))
  -- Burn until the clock is between 1 and 6 ms into the werewolf's slot
  -- (what runs until the copy's initialize takes well under 5 ms), for at
  -- most two periods.
  local width = PERIOD / self.n
  local start = os.clock()
  while os.clock() - start < 2 * PERIOD do
    local t = os.clock() % PERIOD
    local into = t - (wolf - 1) * width
    if into >= 0.001 and into < 0.006 then break end
  end
end

return agent
