-- A contest entry that raises an error in every call after initialize.
local agent = {}
function agent:getName() return "crash" end
function agent:initialize(info, setting) self.me = info.agent end
function agent:update(info) error("crash: update fails on purpose") end
return agent
