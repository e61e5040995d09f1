-- A contest entry that prints floods of output and very long talks.
local agent = {}
function agent:getName() return "flood" end
function agent:update(info)
  for i = 1, 2000 do print(string.rep("flood ", 50)) end
end
function agent:talk() return string.rep("Over ", 20000) end
function agent:vote() return 1 end
return agent
