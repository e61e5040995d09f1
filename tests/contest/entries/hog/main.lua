-- A contest entry that allocates until its memory cap on every vote.
local agent = {}
function agent:getName() return "hog" end
function agent:vote()
  local t = {}
  while true do t[#t + 1] = string.rep("x", 4096) .. #t end
end
function agent:talk() return "Over" end
return agent
