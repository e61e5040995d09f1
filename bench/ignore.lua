-- The info-ignoring agent of bench/instructions.sh: no initialize, no
-- update (so the host builds no info for it), talks Over, votes for no one.
local agent = {}
function agent.talk() return "Over" end
return agent
