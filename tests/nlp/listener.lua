-- listener.lua: an NLP agent for the tests of the group chat. Each talk and
-- whisper says how many of today's talks (or whispers) the agent has
-- heard, "heard 7", and the profile it got at INITIALIZE must stay in
-- info.profile; the fake server checks the count against what it has
-- broadcast by then (tests/nlp/fake_server.py), so a client that talks
-- before it hears the others, or loses or doubles a talk, is caught.
local agent = {}

function agent:getName() return "listener" end
function agent:initialize(info)
  -- the official server sends the character's profile at INITIALIZE, and
  -- so does serve --nlp
  assert(type(info.profile) == "string" and #info.profile > 0, "no info.profile")
  self.profile = info.profile
  self.info = info
end
-- a talk the server sends twice (broadcast, then in a history) is one talk
local function once(list, what)
  local seen = {}
  for i = 1, #list do
    local k = list[i].day .. ":" .. list[i].idx
    assert(not seen[k], what .. " " .. k .. " twice")
    seen[k] = true
  end
end
function agent:update(info)
  assert(info.profile == self.profile, "info.profile changed")
  once(info.talkList, "talk")
  once(info.whisperList or {}, "whisper")
  self.info = info
end
function agent:dayStart() end
function agent:talk() return "heard " .. #self.info.talkList end
function agent:whisper() return "heard " .. #self.info.whisperList end

local function someone(info)
  for a = 1, #info.statusMap do
    if a ~= info.agent and info.statusMap[a] == "ALIVE" then return a end
  end
end
function agent:vote() return someone(self.info) end
function agent:divine() return someone(self.info) end
function agent:guard() return someone(self.info) end
function agent:attack()
  local info = self.info
  for a = 1, #info.statusMap do
    if info.statusMap[a] == "ALIVE" and info.roleMap[a] ~= "WEREWOLF" then return a end
  end
end
function agent:finish() end
return agent
