-- A contest entry that calls os.exit in every call (the sandbox has no
-- os.exit: every call is an error fault).
local agent = {}
local function quit() os.exit(1) end
agent.getName = function() return "exit" end
for _, m in ipairs({ "initialize", "update", "dayStart", "talk", "whisper", "vote", "divine", "guard", "attack",
                     "finish" }) do
  agent[m] = quit
end
return agent
