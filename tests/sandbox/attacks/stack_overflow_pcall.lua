-- Unbounded recursion caught by pcall and repeated forever. The Lua stack
-- grows to its million slots (16 MiB, within the 64 MiB cap), "stack
-- overflow" is caught, and the loop starts again.
-- RESULT (before the fix): the game made no progress for 45 minutes at 100 %
-- CPU, default mode and --work alike: the watchdog's signal handler called
-- lua_sethook, which walks every frame (some 300 000) and took longer than
-- the 5 ms timer period, so the thread spent all its time in the handler
-- (the last resort's siglongjmp too). Now each call stops at the budget.
-- (The hostile cases stack_overflow_*.lua run more shapes, such as pcalls
-- nested on top of the deep stack, in all three modes.)
local agent = {}
local function f() return 1 + f() end
function agent:initialize() while true do pcall(f) end end
return agent
