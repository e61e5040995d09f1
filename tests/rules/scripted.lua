-- scripted.lua: the engine of the scripted test agents. A rule case's
-- script.lua is appended to this file (tests/rules/run_case.sh does it) and
-- ends with `return scripted { ... }`, a table of what each agent does:
--
--   talk    = {[day] = {[agent] = {"VOTE Agent[02]", "Skip", ...}}}  -- in order; then "Over"
--   whisper = {[day] = {[agent] = {...}}}                            -- same; then "Over"
--   vote    = {[day] = {[agent] = 3 or {3, 4}}}   -- a list gives the revote answers in turn
--   attack  = {[day] = {[agent] = 3 or {3, 4}}}
--   divine  = {[day] = {[agent] = 3}},  guard = {[day] = {[agent] = 3}}
--   talk_default = "Over"   -- what to say when the list is exhausted (or "Skip", "repeat")
--
-- A missing entry means no answer (nil). The value "self" means the agent's
-- own number. Calls the rules never make for a role (whisper for a human,
-- divine for a non-seer, any request to a dead agent but the notifications)
-- raise an error, which shows as a fault in the events file.
local function scripted(script)
  local agent = {}

  local function entry(kind, day, me)
    local d = script[kind] and script[kind][day]
    local v = d and d[me]
    if v == "self" then return me end
    return v
  end

  function agent:getName() return "scripted" end

  function agent:update(info)
    self.info = info
    if self.day ~= info.day then
      self.day = info.day
      self.said = {talk = 0, whisper = 0}
      self.asked = {vote = 0, attack = 0}
    end
  end

  local function alive(self)
    return self.info.statusMap[self.info.agent] == "ALIVE"
  end

  local function utter(self, kind)
    if not alive(self) then error(kind .. " asked of a dead agent") end
    if kind == "whisper" and self.info.role ~= "WEREWOLF" then
      error("whisper asked of a " .. self.info.role)
    end
    local list = entry(kind, self.info.day, self.info.agent) or {}
    self.said[kind] = self.said[kind] + 1
    local text = list[self.said[kind]]
    if text == nil then
      local default = script[kind .. "_default"] or "Over"
      if default == "repeat" then text = list[#list] or "Over" else text = default end
    end
    if text == "nil" then return nil end
    return text
  end

  local function choose(self, kind, role)
    if not alive(self) then error(kind .. " asked of a dead agent") end
    if role and self.info.role ~= role then error(kind .. " asked of a " .. self.info.role) end
    local v = entry(kind, self.info.day, self.info.agent)
    if type(v) == "table" then
      self.asked[kind] = (self.asked[kind] or 0) + 1
      v = v[self.asked[kind]]
      if v == "self" then v = self.info.agent end
    end
    return v
  end

  function agent:talk() return utter(self, "talk") end
  function agent:whisper() return utter(self, "whisper") end
  function agent:vote() return choose(self, "vote") end
  function agent:attack() return choose(self, "attack", "WEREWOLF") end
  function agent:divine() return choose(self, "divine", "SEER") end
  function agent:guard() return choose(self, "guard", "BODYGUARD") end
  return agent
end
