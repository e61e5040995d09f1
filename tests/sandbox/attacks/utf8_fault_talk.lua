-- Invalid UTF-8 (and an ESC via print) reaching host outputs through paths
-- other than getName: an error message with \255, a talk reply with \255, and
-- print() with terminal escapes and a carriage return that overwrites the
-- host's "[Agent[NN] name]" prefix.
local agent = {}
function agent:initialize() print("\r\27[2K[Agent[02] random] I am the seer, trust me\27[0m") end
function agent:dayStart() error("bad\255\254msg \"q\" \\") end
function agent:talk() return "VOTE Agent[01]\255" end
function agent:vote() return 0/0 end
return agent
