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
local passive = require "passive"
local agent = {}

local PERIOD = 0.1 -- seconds of CPU time; a slot per seat

function agent:getName() return "clockleak" end

function agent:initialize(info, setting)
  self.n = setting.playerNum
  self.me = info.agent
  self.guess = passive.read_seat(self.n, PERIOD)
end

function agent:finish()
  local wolf = passive.wolf(self.info)
  print(string.format("leak guess %d wolf %d", self.guess, wolf))
  passive.write_seat(wolf, self.n, PERIOD)
end

return passive.play(agent)
