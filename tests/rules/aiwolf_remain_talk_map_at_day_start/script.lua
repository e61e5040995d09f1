-- The official server's gameInfo has remainTalkMap (every living agent ->
-- maxTalk) from INITIALIZE on: at DAILY_INITIALIZE and at the day-0 DIVINE it
-- already reads {"1":10,...} (fixtures/official/tcp/15p_game1/agent01.jsonl).
-- Werewolves likewise see remainWhisperMap (living werewolves -> maxWhisper).
local a = scripted {}
local function check(self, where)
  local i = self.info
  if i.statusMap[i.agent] ~= "ALIVE" then return end
  for x = 1, 5 do
    if i.statusMap[x] == "ALIVE" and i.remainTalkMap[x] == nil then
      error(where .. ": remainTalkMap has no entry for living Agent " .. x .. " on day " .. i.day)
    end
  end
  if i.role == "WEREWOLF" and i.remainWhisperMap[i.agent] == nil then
    error(where .. ": remainWhisperMap has no entry for the werewolf itself on day " .. i.day)
  end
end
local init = a.initialize
function a:initialize(info, s) self.info = info; check(self, "initialize"); if init then return init(self, info, s) end end
function a:dayStart() check(self, "dayStart") end
local divine = a.divine
function a:divine() check(self, "divine"); return divine(self) end
return a
