-- A contest entry that does not even compile.
local agent = {
function agent:talk() return "Over" end
return agent
