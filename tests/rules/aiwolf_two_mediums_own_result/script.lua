-- Two mediums: each gets the medium result as its own judge (agent = itself),
-- as the official GameData builds it per receiver (new Judge(day, agent,
-- executed, species)). Agent 2 must not receive a judge made out to Agent 1.
local a = scripted {
  vote = {[1] = {[1] = 3, [2] = 3, [3] = 1, [4] = 3, [5] = 3, [6] = 3}},
}
function a:dayStart()
  local i = self.info
  local m = i.mediumResult
  if m and m.agent ~= i.agent then
    error("mediumResult made out to Agent " .. m.agent .. ", delivered to Agent " .. i.agent)
  end
end
return a
