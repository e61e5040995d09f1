-- renew_hostile.lua: an agent that tries to pass something from one game to
-- the next in the same sandbox (tests/luaseat/test_renew_hostile.c). The
-- test writes a first line that sets the locals MODE, BIG and BLOAT (no
-- global: a game that adds none may pass its globals on); math.random
-- chooses a hostile act each game:
--   "struct": getName returns a hash of everything the agent can see at
--     the start of a game, keys sorted (it must be the one an agent in a new
--     sandbox sees in the same game), and the talks and votes follow a hash
--     of info and setting (the whole log must be the new sandbox's);
--   "order": getName returns a hash of the order in which pairs() lists
--     the globals and each library, and where keys added to `os` go (in one
--     sandbox, every game must see the same: each game's tables are made
--     the same way);
--   "memory": getName first allocates BIG bytes (a new sandbox can), then
--     grows something by 12 MB or more (BLOAT).
local MODE, ACT, BIG, BLOAT = MODE, ACT, BIG, BLOAT
local next, type, tostring, pairs, ipairs, select = next, type, tostring, pairs, ipairs, select
local sort, concat, byte, format, rep = table.sort, table.concat, string.byte, string.format, string.rep
local getmetatable, pcall, rawset, rawget, random = getmetatable, pcall, rawset, rawget, math.random
local lpeg = require 'lpeg'
local P = MODE ~= 'memory' and require 'aiwolf.protocol'
local A = MODE ~= 'memory' and require 'aiwolf.agent'

local function hash(s)
  local h = 2166136261
  for i = 1, #s do h = ((h ~ byte(s, i)) * 16777619) & 0xffffffff end
  return h
end

local function keystr(k)
  local t = type(k)
  if t == 'string' then return 's' .. k end
  if t == 'number' then return 'n' .. format('%.17g', k) end
  if t == 'boolean' then return 'b' .. tostring(k) end
  return '?' .. t
end

-- Everything reachable from the roots, keys sorted, objects numbered in the
-- order first met (no addresses, which differ from one state to another).
local function structure(roots)
  local ids, n, out = {}, 0, {}
  local function walk(v, depth)
    local t = type(v)
    if t ~= 'table' and t ~= 'function' and t ~= 'userdata' and t ~= 'thread' then
      out[#out + 1] = t == 'number' and keystr(v) or t .. ':' .. tostring(v)
      return
    end
    if ids[v] then out[#out + 1] = '@' .. ids[v] return end
    n = n + 1
    ids[v] = n
    out[#out + 1] = t
    if depth > 8 then return end
    if t == 'table' then
      local keys, byname = {}, {}
      for k in next, v do
        local s = keystr(k)
        keys[#keys + 1] = s
        byname[s] = k
      end
      sort(keys)
      out[#out + 1] = '{' .. #keys
      for _, s in ipairs(keys) do
        out[#out + 1] = s
        if s:sub(1, 1) == '?' then walk(byname[s], depth + 1) end
        walk(rawget(v, byname[s]), depth + 1)
      end
      out[#out + 1] = '}'
    end
    if t == 'table' or t == 'userdata' then
      out[#out + 1] = 'mt'
      walk(getmetatable(v), depth + 1)
    end
  end
  for _, r in ipairs(roots) do walk(r, 0) end
  return concat(out, ' ')
end

local function probes()
  local out = {}
  local function add(...) for i = 1, select('#', ...) do out[#out + 1] = tostring((select(i, ...))) end end
  add(getmetatable(''), ('x'):upper(), ('').len == string.len, ('').format == string.format)
  add(pcall(require, 'nothing.here'))
  -- LPeg's backtrack stack (lpeg.setmaxstack)
  local g = lpeg.P { 'a' * lpeg.V(1) + 'b' }
  add(pcall(lpeg.match, g, rep('a', 300) .. 'b'))
  local pat = lpeg.P(1)
  add(type(getmetatable(pat)), pcall(function() return pat.mark end))
  local s = P.parse and P.parse('VOTE Agent[01]')
  add(type(s), type(s) == 'table' and type(getmetatable(s)))
  add(random(1 << 30), random(1 << 30), random())
  return concat(out, ' ')
end

-- The order pairs() lists the globals and each library in, and where 40
-- keys added to os (then removed) go.
local function order()
  local out = {}
  local function list(t) for k in next, t do out[#out + 1] = keystr(k) end out[#out + 1] = '|' end
  list(_G)
  for _, name in ipairs { 'string', 'table', 'math', 'os', 'coroutine', 'utf8', 'package' } do list(_G[name]) end
  for i = 1, 40 do os['k' .. i] = i end
  list(os)
  for i = 1, 40 do os['k' .. i] = nil end
  return concat(out, ' ')
end

-- Makes garbage until the collector has run (no collectgarbage("collect")).
local function churn()
  local t
  for i = 1, 20000 do t = { i, tostring(i) } end
  return t
end

local acts = {
  function() end, -- nothing
  function() local f = string.format churn() string.format = nil churn() string.format = f end,
  function() for i = 1, 40000 do table[i + 0.5] = true end for i = 1, 40000 do table[i + 0.5] = nil end end,
  function() for i = 1, 30 do os['x' .. i] = i end for i = 1, 30 do os['x' .. i] = nil end end,
  function() for i = 1, 100 do _G['g' .. i] = i end for i = 1, 100 do _G['g' .. i] = nil end end,
  function() string.len = string.len utf8.charpattern = utf8.charpattern .. '' end,
  function() lpeg.setmaxstack(5) end,
  function() package.loaded = package.preload package.preload = {} end,
  function() _G[1] = 'x' _G[1] = nil rawset(math, 2, 2) rawset(math, 2, nil) end,
  function() local mt = { __index = function() return 'leak' end } setmetatable(_G, mt) setmetatable(_G, nil) end,
  function() local G = _G G._G = nil churn() G._G = G end,
  function() string.format = {} end,
  function() setmetatable(string, { __index = function() return 'leak' end }) end,
  function() lpeg.mark = 1 P.mark = 1 A.mark = 1 if P.VERBS then P.VERBS[1] = 'HACK' end end,
  function() pcall(function() getmetatable(lpeg.P(1)).__index = function() return 'leak' end end) end,
  function()
    local core = package.loaded['aiwolf.protocol_core'] or select(2, pcall(require, 'aiwolf.protocol_core'))
    if type(core) == 'table' then core.parse = function() return 'leak' end core.mark = 1 end
    local s = P.parse and P.parse('VOTE Agent[01]')
    local mt = type(s) == 'table' and getmetatable(s)
    if type(mt) == 'table' then mt.__index = function() return 'leak' end mt.mark = 1 end
  end,
  function() -- a game-1 closure where the next game might look
    local f = function() return 'leak' end
    string.leak = f os.leak = f
    local co = coroutine.wrap(function() while true do coroutine.yield(f) end end) co()
    coroutine.leak = co
  end,
}
local NACTS = #acts

local agent = {}

function agent:getName()
  if MODE == 'memory' then
    local s = rep('x', BIG)
    local n = #s
    s = nil
    if BLOAT == 'module' then -- 12 MB in a global of a game that ran a module's chunk
      require 'aiwolf.protocol'
      KEEP = rep('k', 12 << 20)
    elseif BLOAT == 'stack' then -- 150 000 Lua calls deep: about 15 MB of stack and call records
      local function deep(k) if k == 0 then return 0 end return deep(k - 1) + 1 end
      deep(150000)
    elseif BLOAT then -- 300 000 float keys: a node array of 2^19 entries (12 MB)
      for i = 1, 300000 do _G[i + 0.5] = true end
      for i = 1, 300000 do _G[i + 0.5] = nil end
    end
    return 'big-' .. n
  end
  local name
  if MODE == 'order' then
    name = 'order-' .. hash(order())
  else
    name = 'struct-' .. hash(structure { _G, package.loaded, lpeg, P, A }) .. '-' .. hash(probes())
  end
  local act = ACT or random(NACTS)
  acts[act]()
  return name .. '-' .. act
end

local function info_hash(info, setting)
  local parts = { structure { info } }
  if setting then parts[#parts + 1] = structure { setting } end
  local fields = {}
  for k, v in pairs(info) do fields[#fields + 1] = keystr(k) .. '=' .. type(v) end
  sort(fields)
  parts[#parts + 1] = concat(fields, ',')
  return hash(concat(parts, ';'))
end

function agent:initialize(info, setting)
  self.h = info_hash(info, setting)
  self.turn = 0
  -- writes that must not outlive the game
  pcall(function() setting.playerNum = 99 setting.roleNumMap.SEER = 7 end)
end

function agent:update(info)
  self.h = (self.h * 31 + info_hash(info)) & 0xffffffff
  pcall(function()
    info.day = 99
    info.statusMap[1] = 'X'
    rawset(info, 'mine', { 1 })
    info.extra = 1
    local talks = info.talkList
    if talks and talks[1] then talks[1].text = 'x' talks[1].mark = 1 end
    talks[#talks + 1] = { text = 'forged' }
  end)
end

function agent:talk()
  self.turn = self.turn + 1
  if self.turn > 4 then return 'Over' end
  local t = 1 + (self.h >> (self.turn * 3)) % 5
  return format('ESTIMATE Agent[%02d] WEREWOLF', t)
end

function agent:vote() return 1 + self.h % 5 end
function agent:divine() return 1 + (self.h >> 4) % 5 end
function agent:guard() return 1 + (self.h >> 8) % 5 end
function agent:attack() return 1 + (self.h >> 12) % 5 end
function agent:whisper() return 'Over' end

return agent
