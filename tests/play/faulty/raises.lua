-- A faulty agent (tests/play/faulty_agents.sh, tests/isolate/isolate_play.sh):
-- a Lua error in talk, and an error whose value is not a string in vote.
local a = {}
function a:talk() error("talk is broken") end
function a:vote() error({}) end
return a
