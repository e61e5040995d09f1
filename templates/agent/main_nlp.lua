-- {{NAME}}: an AIWolf agent for the NLP division, made by `aiwolf new --nlp`.
--
-- It plays on the official aiwolf-nlp-server through
--   aiwolf connect --nlp ws://HOST:PORT/ws --team {{NAME}}1 main.lua
-- (docs/nlp.md). Agents there have names (info.names[i]), talk in English or
-- Japanese (info.lang), and each talk is cut to a length rule. This one
-- talks in the first person with the templates of aiwolf.nlp: the seer comes
-- out and reports its divinations; everyone reads the others' talk for seer
-- claims and their results, votes for a werewolf so reported (else one
-- random agent a day), says so to that agent (@Name), and answers whoever
-- addresses it.
--
-- Locally (names are then Agent[01]..., the language English):
--   aiwolf play --set validation=off main.lua main.lua
-- (validation=off: free text is no protocol sentence; docs/nlp.md)

local A = require "aiwolf.agent"
-- Names, the length rule, templates and reading text (docs/nlp.md).
local N = require "aiwolf.nlp"

---@class {{CLASS}}: aiwolf.Agent
---@field target? integer today's vote
---@field said? integer the vote declared today
---@field cameOut? boolean
---@field reported? integer
---@field seen integer talks of today already read
---@field heard table<integer, string> reported werewolves: agent -> who reported
---@field answered table<integer, boolean> talks (by index) already answered
local agent = A.new{name = "{{NAME}}"}

function agent:dayStart()
  self.target, self.said, self.seen, self.answered = nil, nil, 0, {}
  self.heard = self.heard or {}
end

-- Reads today's new talks: who claims to be a seer, and what they report.
function agent:read()
  local info = self.info
  local talks = info.talkList
  for i = (self.seen or 0) + 1, #talks do
    local t = talks[i]
    if t.agent ~= self.me and type(t.text) == "string" then
      if N.claim(info, t.text, t.agent) == "SEER" or #N.results(info, t.text, t.agent) > 0 then
        for _, r in ipairs(N.results(info, t.text, t.agent)) do
          if r.species == "WEREWOLF" and r.target ~= self.me then self.heard[r.target] = N.name(info, t.agent) end
        end
      end
    end
  end
  self.seen = #talks
end

---@return integer?
function agent:voteTarget()
  self:read()
  for _, d in ipairs(self.divinations) do
    if d.result == "WEREWOLF" and A.is_alive(self.info, d.target) then return d.target end
  end
  if self.role ~= "WEREWOLF" then
    for _, a in ipairs(A.alive(self.info)) do
      if self.heard[a] and a ~= self.me then return a end
    end
  end
  if not (self.target and A.is_alive(self.info, self.target)) then
    self.target = A.pick(A.humans(self.info))
  end
  return self.target
end

-- Each call says one thing in the game's language, fitted to the length rule.
function agent:talk()
  local info = self.info
  if self.role == "SEER" then
    if not self.cameOut then
      self.cameOut = true
      return N.say(info, "comingout", "SEER")          --> I am the seer. / 私は占い師です。
    end
    self.reported = self.reported or 0
    if self.reported < #self.divinations then
      self.reported = self.reported + 1
      local d = self.divinations[self.reported]
      return N.say(info, "divined", d.target, d.result) --> I divined Kenji: a werewolf.
    end
  end
  local t = self:voteTarget()
  if t and t ~= self.said then
    self.said = t
    return N.mention(info, t, N.say(info, "vote", t))   --> @Kenji I will vote for Kenji.
  end
  -- someone spoke to us: answer once
  for i, talk in ipairs(info.talkList) do
    if not self.answered[i] and talk.agent ~= self.me and type(talk.text) == "string" then
      for _, a in ipairs(N.mentions(info, talk.text)) do
        if a == self.me then
          self.answered[i] = true
          return N.fit(info, N.mention(info, talk.agent, N.say(info, "ask", talk.agent)))
        end
      end
    end
  end
  return "Over"
end

-- An agent number; in an NLP game a name (N.name(self.info, t)) works too.
function agent:vote()
  return self:voteTarget()
end

return agent
