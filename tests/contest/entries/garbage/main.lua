-- A contest entry that answers with the wrong types and illegal utterances.
local agent = {}
local n = 0
function agent:getName() return { "not", "a", "name" } end
function agent:talk()
  n = n + 1
  local answers = { {}, 42, "VOTE Agent[99]", "hello world", "\0\1\2", function() end }
  return answers[n % #answers + 1]
end
function agent:whisper() return "ATTACK everyone" end
function agent:vote() return 2.5 end
function agent:divine() return "Agent[01]" end
function agent:guard() return -3 end
function agent:attack() return 1e300 end
return agent
