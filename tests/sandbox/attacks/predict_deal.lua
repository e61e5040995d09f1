-- Predicting the game's random choices from what an agent is given.
--
-- Until the seeds were made one-way, setting.randomSeed WAS the game's seed,
-- and the engine's generator (xoshiro256** seeded through splitmix64) and its
-- deal (a Fisher-Yates shuffle of the agents, then the roles in enum order)
-- are public: thirty lines of Lua rebuilt them and named every player's role
-- in initialize, right 100 % of the time. A second variant inverted the seat
-- seed derivation (two splitmix64 steps, which are bijective) from the
-- agent's own seed back to the game's seed. Both hypotheses also predict
-- later draws: here the order of the first talk turn of day 1 (in a
-- 5-player game, the first draws after the deal).
--
-- The agent prints, at the end of each game, how many of its predictions
-- came true: "predict <hyp> roles H/N order H/N". tests/sandbox/predict.sh
-- plays many games and checks that no hypothesis does better than chance.
local agent = {}

local GAMMA = 0x9e3779b97f4a7c15
local C1, C2 = 0xbf58476d1ce4e5b9, 0x94d049bb133111eb
local DERIVE = 0xd1b54a32d192ed03
local ROLES = { "BODYGUARD", "FREEMASON", "MEDIUM", "POSSESSED", "SEER", "VILLAGER", "WEREWOLF", "FOX" }

local function rotl(x, k) return (x << k) | (x >> (64 - k)) end

local function mix(z)
  z = (z ~ (z >> 30)) * C1
  z = (z ~ (z >> 27)) * C2
  return z ~ (z >> 31)
end

local function unxorshift(y, k)
  local x = y
  for _ = 1, 64 // k + 1 do x = y ~ (x >> k) end
  return x
end

local function inverse(c) -- of an odd number, modulo 2^64
  local x = c
  for _ = 1, 6 do x = x * (2 - c * x) end
  return x
end

local function unmix(z)
  z = unxorshift(z, 31)
  z = z * inverse(C2)
  z = unxorshift(z, 27)
  z = z * inverse(C1)
  return unxorshift(z, 30)
end

-- The old generator.
local function xoshiro(seed)
  local s, x = {}, seed
  for i = 1, 4 do
    x = x + GAMMA
    s[i] = mix(x)
  end
  return function()
    local result = rotl(s[2] * 5, 7) * 9
    local t = s[2] << 17
    s[3] = s[3] ~ s[1]
    s[4] = s[4] ~ s[2]
    s[2] = s[2] ~ s[3]
    s[1] = s[1] ~ s[4]
    s[3] = s[3] ~ t
    s[4] = rotl(s[4], 45)
    return result
  end
end

local function umod(x, n)
  if x >= 0 then return x % n end
  return ((x >> 1) % n * 2 + (x & 1)) % n
end

local function below(next, n)
  if n <= 1 then return 0 end
  local limit = -1 - umod(-1, n)
  local v
  repeat v = next() until math.ult(v, limit)
  return umod(v, n)
end

-- The deal and the next draws, for one hypothesis about the game's seed.
local function predict(seed, n, counts)
  local next = xoshiro(seed)
  local free = {}
  for a = 1, n do free[a] = a end
  for i = n - 1, 1, -1 do
    local j = below(next, i + 1)
    free[i + 1], free[j + 1] = free[j + 1], free[i + 1]
  end
  local roles, k = {}, 1
  for _, r in ipairs(ROLES) do
    for _ = 1, counts[r] or 0 do
      roles[free[k]] = r
      k = k + 1
    end
  end
  -- The first talk turn's order, drawn one place at a time.
  local order = {}
  for a = 1, n do order[a] = a end
  for i = 1, n - 1 do
    local pick = order[i + below(next, n - i + 1)]
    for j = i, n do
      if order[j] == pick then
        order[j], order[i] = order[i], pick
        break
      end
    end
  end
  return roles, order
end

function agent:getName() return "predict" end

function agent:initialize(info, setting)
  self.me = info.agent
  self.n = setting.playerNum
  local given = setting.randomSeed
  self.hyp = {
    seed = { predict(given, self.n, setting.roleNumMap) },
    derived = { predict(unmix(given) - 2 * GAMMA ~ (self.me * DERIVE), self.n, setting.roleNumMap) },
  }
end

function agent:update(info)
  self.info = info
  if info.day == 1 and not self.order then
    local order = {}
    for _, t in ipairs(info.talkList) do
      if t.turn == 0 then order[#order + 1] = t.agent end
    end
    if #order == self.n then self.order = order end
  end
end

function agent:talk() return "Over" end
function agent:whisper() return "Over" end

local function living_other(info, me)
  for a = 1, #info.statusMap do
    if a ~= me and info.statusMap[a] == "ALIVE" then return a end
  end
end

function agent:vote() return living_other(self.info, self.me) end
function agent:divine() return living_other(self.info, self.me) end
function agent:guard() return living_other(self.info, self.me) end
function agent:attack()
  for a = 1, #self.info.statusMap do
    if self.info.statusMap[a] == "ALIVE" and self.info.roleMap[a] ~= "WEREWOLF" then return a end
  end
end

function agent:finish()
  local truth = self.info.roleMap
  for _, name in ipairs{ "seed", "derived" } do
    local roles, order = table.unpack(self.hyp[name])
    local rh, rn, oh, on = 0, 0, 0, 0
    for a = 1, self.n do
      if a ~= self.me and truth[a] then
        rn = rn + 1
        if roles[a] == truth[a] then rh = rh + 1 end
      end
    end
    if self.order then
      for i = 1, self.n do
        on = on + 1
        if order[i] == self.order[i] then oh = oh + 1 end
      end
    end
    print(string.format("predict %s roles %d/%d order %d/%d", name, rh, rn, oh, on))
  end
end

return agent
