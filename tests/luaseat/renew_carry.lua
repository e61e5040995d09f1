-- renew_carry.lua: an agent that tries to carry state from one game to the
-- next of its seat (tests/luaseat/test_renew_carry.c). At the start of each
-- game (getName) it first looks for the marks an earlier game could have
-- left, then leaves them all again, everywhere it can reach:
--   globals (new ones, replaced base functions, a metatable on _G; the
--   globals table itself is a proxy until it is listed, changed or read
--   often, and alternate games read and list it first); library tables
--   (string, table, math, os, utf8, coroutine: new fields, replaced and
--   removed functions, a metatable); the strings' methods (a method added
--   to string, the global `string` replaced); module tables (aiwolf.protocol:
--   its table, the tables in it, its functions; aiwolf.agent; LPeg's) and
--   what their functions keep (a sentence's metatable); require's caches
--   (package.loaded, package.preload, a module replaced in loaded); the
--   registry as far as Lua reaches it (LPeg's pattern metatable);
--   math.random's state (math.randomseed); memory (2 MB kept in a global,
--   2 MB in the agent's table, whose registry reference the next game's
--   table reuses).
-- Its name: "carry-" followed by the marks it found ("clean" for none), a
-- draw of math.random and its heap in KiB when the game started, e.g.
-- "carry-clean-123456-180".
local agent = {}

local lpeg = require 'lpeg'
local format, floor, random, rep, collectgarbage = string.format, math.floor, math.random, string.rep, collectgarbage

-- Lists no library table unless list is set (pairs fills a library table
-- the game got as a proxy: games that list them and games that do not
-- each leave their marks through another path).
local function found(list)
  local marks = {}
  local function mark(cond, what) if cond then marks[#marks + 1] = what end end
  local function quiet(f) local ok, v = pcall(f) return ok and v or nil end
  if list then -- fills the globals first: each library then as filled
    local t = 0
    for _ = 1, 40 do t = t + #type(t) end -- reads enough globals to fill them
    mark(t ~= 240, 'globals-read')
    local n = 0
    for _ in pairs(_G) do n = n + 1 end
    mark(n ~= 30, 'globals-size-' .. n)
  end
  mark(getmetatable(_G) ~= nil, 'globals-metatable')
  mark(rawget(_G, 'select') ~= select or rawget(_G, 'pairs') ~= pairs, 'globals-raw')
  mark(_G._G ~= _G or package.loaded._G ~= _G or rawget(_G, '_G') ~= _G, 'globals-self')
  mark(agent.KEEP ~= nil, 'agent-table')
  mark(quiet(function() return ('x'):carry() end) ~= nil, 'string-method')
  mark(('x'):upper() ~= 'X', 'string-methods')
  mark(rawget(_G, 'CARRY') ~= nil or CARRY ~= nil, 'global')
  mark(select('#', 1, 2) ~= 2, 'base-function')
  for _, name in ipairs { 'string', 'table', 'math', 'os', 'utf8', 'coroutine' } do
    local lib = _G[name]
    mark(type(lib) ~= 'table', name .. '-replaced')
    if type(lib) == 'table' then
      mark(lib.carry ~= nil, name .. '-field')
      mark(getmetatable(lib) ~= nil, name .. '-metatable')
      if list then
        local n = 0
        for _ in pairs(lib) do n = n + 1 end
        mark(n ~= ({ string = 16, table = 7, math = 35, os = 4, utf8 = 6, coroutine = 8 })[name],
             name .. '-size-' .. n)
        mark(rawget(lib, 'carry') ~= nil, name .. '-raw-field')
      end
    end
  end
  mark(utf8.carry2 ~= nil, 'rawset')
  mark(string.rep('a', 2) ~= 'aa', 'string-function')
  mark(math.floor == nil or math.floor(1.5) ~= 1, 'math-removed')
  mark(table.concat({ 'a', 'b' }) ~= 'ab', 'table-function')
  mark(getmetatable('') ~= false, 'string-metatable')
  local P = require 'aiwolf.protocol'
  mark(P.carry ~= nil or rawget(P, 'carry') ~= nil, 'protocol-field')
  mark(P.fake ~= nil, 'protocol-replaced')
  mark(P.say('VOTE', 1) ~= 'VOTE Agent[01]', 'protocol-function')
  mark(#P.ROLES ~= 6 or P.ROLES[7] ~= nil or P.ROLES[1] ~= 'VILLAGER', 'protocol-list')
  mark(P.VERBS.carry ~= nil or P.VERBS.VOTE ~= 1, 'protocol-verbs')
  mark(tostring(P.vote(2)) ~= 'VOTE Agent[02]' or P.vote(2).carry ~= nil, 'protocol-sentence')
  local A = require 'aiwolf.agent'
  mark(A.carry ~= nil, 'agent-module')
  mark(package.loaded.carry ~= nil or package.preload.carry ~= nil, 'require-cache')
  mark(quiet(function() return require 'carry.module' end) ~= nil, 'preload')
  mark(lpeg.carry ~= nil, 'lpeg-module')
  mark(quiet(function() return lpeg.P(1).carry end) ~= nil, 'lpeg-metatable')
  return #marks == 0 and 'clean' or table.concat(marks, '+')
end

local function leave()
  CARRY = { 'carry' }
  _G.select = function() return 0 end
  for _, name in ipairs { 'string', 'table', 'math', 'os', 'utf8', 'coroutine' } do
    _G[name].carry = 'carry'
  end
  string.rep = function() return 'carry' end
  math.floor = nil
  table.concat = function() return 'carry' end
  setmetatable(os, { __index = function() return 'carry' end })
  rawset(utf8, 'carry2', 1)
  function string.carry() return 'carry' end
  local _ = ('x'):carry() -- a method added to string works at once
  local P = require 'aiwolf.protocol'
  P.carry = 1
  P.say = function() return 'carry' end
  P.ROLES[7] = 'CARRY'
  table.insert(P.ROLES, 'CARRY')
  P.VERBS.carry = 1
  P.VERBS.VOTE = 99
  pcall(function() getmetatable(P.vote(1)).__index = function() return 'carry' end end)
  require('aiwolf.agent').carry = 1
  package.loaded.carry = {}
  package.preload.carry = function() return 'carry' end
  package.preload['carry.module'] = function() return 'carry' end
  package.loaded['aiwolf.protocol'] = { fake = true }
  lpeg.carry = 1
  pcall(function() getmetatable(lpeg.P(1)).__index = function() return 'carry' end end)
  math.randomseed(42)
  local parts = {} -- 2 MB kept in a global
  for i = 1, 2048 do parts[i] = rep('y', 1000) .. i end
  KEEP = parts
  agent.KEEP = parts
  agent.KEEP2 = {}
  for i = 1, 2048 do agent.KEEP2[i] = rep('z', 1000) .. i end
  setmetatable(_G, { __index = function() return 'carry' end })
  _G.string = setmetatable({}, { __index = function() return function() return 'carry' end end })
end

function agent:getName()
  local kb = collectgarbage('count')
  local draw = random(1 << 30)
  local marks = found(draw % 2 == 0)
  leave()
  return format('carry-%s-%d-%d', marks, draw, floor(kb))
end

return agent
