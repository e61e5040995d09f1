-- Stack overflow inside a fresh coroutine per attempt, retried forever
-- (hostile/stack_overflow_coroutine.lua has more).
local agent = {}
local function f() return 1 + f() end
function agent:initialize() while true do coroutine.resume(coroutine.create(f)) end end
return agent
