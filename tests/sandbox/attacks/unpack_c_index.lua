-- table.unpack over a table whose __index is a C function: a million calls
-- in one stock C loop, where no Lua instruction runs for a hook to stop,
-- and (with __index = os.time) a million mktime calls holding glibc's
-- time-zone lock, out of which the last resort's siglongjmp used to jump,
-- leaving the lock taken: every other agent's os.date/os.time in the
-- process then hung until it was killed. Expect: each call stopped at its
-- budget (unpack charges every element), the game goes on, and the agents
-- beside it (tests/sandbox/victims.sh) see no fault at all.
local agent = {}
local function attack()
  -- every date field present, so each os.time(t, k) is one clean mktime
  local date = { year = 2020, month = 1, day = 1, hour = 0, min = 0, sec = 0, isdst = false }
  while true do
    pcall(table.unpack, setmetatable(date, { __index = os.time }), 1, 990000)
    pcall(table.unpack, setmetatable({}, { __index = os.clock }), 1, 990000)
  end
end
function agent:talk() attack() end
function agent:vote() attack() end
function agent:divine() attack() end
function agent:attack() attack() end
function agent:guard() attack() end
function agent:whisper() attack() end
return agent
