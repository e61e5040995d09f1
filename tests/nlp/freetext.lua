-- freetext.lua: an NLP agent for the tests. It talks free text far past the
-- length rule, with an @mention of another agent, in the game's language; it
-- answers votes and night actions with NAMES (info.names), never numbers;
-- and it checks what info carries in an NLP game (a failed check is an
-- error, which the client reports).
local N = require "aiwolf.nlp"
local agent = {}

function agent:getName() return "freetext" end

local function check(info)
  assert(type(info.names) == "table" and #info.names == #info.statusMap, "info.names")
  assert(type(info.names[info.agent]) == "string", "own name")
  assert(info.lang == "en" or info.lang == "ja", "info.lang")
end

function agent:update(info) check(info); self.info = info end

function agent:initialize(info)
  -- the official server sends a profile at INITIALIZE; serve --nlp does not
  assert(info.profile == nil or (type(info.profile) == "string" and #info.profile > 0), "info.profile")
  -- aiwolf.nlp in the sandbox, with the C parser: a protocol sentence in the
  -- game's language, first person, with names
  local co = assert(N.render(info, string.format("COMINGOUT Agent[%02d] SEER", info.agent)))
  assert(co == "I am the seer." or co == "私は占い師です。", co)
  assert(N.name(info, info.agent) == info.names[info.agent])
end

local function other(info)
  for a = 1, #info.statusMap do
    if a ~= info.agent and info.statusMap[a] == "ALIVE" then return a end
  end
end

function agent:talk()
  local info = self.info
  assert(info.remainCount ~= nil, "info.remainCount in TALK")
  local word = info.lang == "ja" and "あ" or "a "
  return string.rep(word, 300) .. "@" .. info.names[other(info)] .. " " .. string.rep(word, 300)
end
agent.whisper = agent.talk

local function target(self) return self.info.names[other(self.info)] end
agent.vote, agent.divine, agent.guard, agent.attack = target, target, target, target

return agent
