-- A contest entry that never returns from talk and vote.
local agent = {}
function agent:getName() return "loop" end
function agent:talk() while true do end end
function agent:vote() local n = 0 while true do n = n + 1 end end
return agent
