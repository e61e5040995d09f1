-- chatty.lua: a local seat for NLP games. It talks free text that mentions
-- another agent past the length rule (so the cut shows in the log), votes
-- and acts on the first living agent other than itself.
local agent = {}
function agent:getName() return "chatty" end
function agent:update(info) self.info = info end
local function other(self)
  local info = self.info
  for a = 1, #info.statusMap do
    if a ~= info.agent and info.statusMap[a] == "ALIVE" then return a end
  end
  return info.agent
end
function agent:talk()
  local n = #self.info.talkList
  if n % 3 == 2 then return "Over" end
  return string.rep("word ", 40) .. "@Minato " .. string.rep("あ", 200)
end
function agent:whisper() return "wolf talk, day " .. self.info.day end
function agent:vote() return other(self) end
function agent:divine() return other(self) end
function agent:guard() return other(self) end
function agent:attack() return other(self) end
return agent
