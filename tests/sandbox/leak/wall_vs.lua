-- The werewolf's seat from one game to the next through the wall clock
-- (os.time, os.date), which every seat and game of a process (and every
-- process) shares, and which a seat moves on by burning CPU.
--
-- Under `play --vs --fixed-seats A B` with 5 players, A sits at seats 1, 3,
-- 5 in the first game of a pair and 2, 4 in its mirror (same seed, same
-- roles by seat). Seat 5 of the first game, at its finish (the last call of the
-- game, roles revealed), burns CPU until os.time() % 5 is the werewolf's
-- seat - 1, and returns as soon as it is; seat 2 of the mirror reads
-- os.time() % 5 in initialize a few ms later. (Run with --budget 6000: the
-- wait is up to 4 s; a second that does not change in 1.05 s of CPU, at
-- least as much wall-clock time, means a clock that does not run: it gives
-- up.)
--
-- With os.time and os.date reading the time the process started, the
-- guess is the same in every game (right when the werewolf sits there:
-- chance).
--
-- Seat 2 prints "leak guess G wolf W" at the end of each game;
-- tests/sandbox/leak.sh counts the mirror games' hits.
local passive = require "passive"
local agent = {}

function agent:getName() return "wallleak" end

function agent:initialize(info, setting)
  self.n = setting.playerNum
  self.me = info.agent
  if self.me == 2 then self.guess = os.time() % self.n + 1 end
end

function agent:finish()
  local wolf = passive.wolf(self.info)
  if self.guess then print(string.format("leak guess %d wolf %d", self.guess, wolf)) end
  if self.me == self.n then
    local t, c = os.time(), os.clock()
    while t % self.n ~= wolf - 1 and os.clock() - c < 1.05 do
      local now = os.time()
      if now ~= t then t, c = now, os.clock() end
    end
  end
end

return passive.play(agent)
