-- meta/ against lua/: the annotation files that editors read
-- (meta/aiwolf/*.lua, docs/agents.md "Editor support") name every public
-- function and field of aiwolf.protocol and aiwolf.agent, and nothing that
-- the modules do not have. The modules' side is what they really hold (the
-- tables require returns, the fields the base agent's initialize sets); the
-- annotations' side is read from the meta files' text, line by line, in the
-- forms they are written in:
--   function P.name(...)   P.name = ...   P["name"] = ...
--   function A.name(...)   A.name = ...   function Agent:name(...)
--   ---@field name ... (in the ---@class aiwolf.Agent block)
-- Names starting with "_" are private on both sides and not compared.
-- Paths are the project root's: busted runs there (tests/CMakeLists.txt).
local function read(path)
  local f = assert(io.open(path, "r"))
  local text = f:read("a")
  f:close()
  return text
end

-- The set of names the lines of text declare with any of the patterns.
local function declared(text, patterns)
  local names = {}
  for line in text:gmatch("[^\n]*") do
    for _, p in ipairs(patterns) do
      local name = line:match(p)
      if name then names[name] = true end
    end
  end
  return names
end

-- The ---@field names of the ---@class block `class` ({name = optional?}).
local function class_fields(text, class)
  local fields, inside = {}, false
  local head = "---@class " .. class
  for line in text:gmatch("[^\n]*") do
    if line == head or line:sub(1, #head + 1) == head .. ":" or line:sub(1, #head + 1) == head .. " " then
      inside = true
    elseif inside and not line:match("^%-%-%-") then
      break
    elseif inside then
      local name, opt = line:match("^%-%-%-@field ([%w_]+)(%??)")
      if name then fields[name] = opt == "?" end
    end
  end
  return fields
end

-- The public names of a table ({name = true}); functions_only: methods.
local function public(t, functions_only)
  local names = {}
  for k, v in pairs(t) do
    if type(k) == "string" and k:sub(1, 1) ~= "_" and (not functions_only or type(v) == "function") then
      names[k] = true
    end
  end
  return names
end

local function sorted(set)
  local list = {}
  for k in pairs(set) do list[#list + 1] = k end
  table.sort(list)
  return list
end

-- The names in a but not in b, sorted (for a readable failure).
local function missing(a, b)
  local out = {}
  for k in pairs(a) do
    if not b[k] then out[#out + 1] = k end
  end
  table.sort(out)
  return out
end

local function without_private(set)
  local out = {}
  for k in pairs(set) do
    if k:sub(1, 1) ~= "_" then out[k] = true end
  end
  return out
end

describe("meta/aiwolf/protocol.lua", function()
  local P = require "aiwolf.protocol"
  local meta = read("meta/aiwolf/protocol.lua")
  local annotated = without_private(declared(meta, {
    "^function P%.([%w_]+)%(", "^P%.([%w_]+)%s*=", '^P%["([%w_]+)"%]%s*=',
  }))
  local real = public(P)

  it("annotates every public field of aiwolf.protocol", function()
    assert.are.same({}, missing(real, annotated))
  end)
  it("annotates nothing aiwolf.protocol lacks", function()
    assert.are.same({}, missing(annotated, real))
  end)
  it("reads the annotations (a check on the patterns above)", function()
    assert.is_true(#sorted(annotated) >= 40)
    assert.is_true(annotated.vote and annotated.ANY and annotated["and"] and true)
  end)
end)

describe("meta/aiwolf/agent.lua", function()
  local A = require "aiwolf.agent"
  local meta = read("meta/aiwolf/agent.lua")
  local functions = without_private(declared(meta, {"^function A%.([%w_]+)%(", "^A%.([%w_]+)%s*="}))
  local methods = without_private(declared(meta, {"^function Agent:([%w_]+)%("}))
  local fields = class_fields(meta, "aiwolf.Agent")

  it("annotates every public field of aiwolf.agent, and nothing else", function()
    local real = public(A)
    assert.are.same({}, missing(real, functions))
    assert.are.same({}, missing(functions, real))
  end)

  it("annotates every public method of the base agent, and nothing else", function()
    local real = public(A.Agent, true)
    assert.are.same({}, missing(real, methods))
    assert.are.same({}, missing(methods, real))
  end)

  -- The fields the base agent keeps: those its initialize and update set
  -- (after a game's first calls), against the class's ---@field lines. The
  -- optional ones (`name?`, `onTalk?`: the agent's own) are only checked
  -- to be no field the base sets without saying so.
  it("annotates every public field the base agent keeps, and nothing else", function()
    local status, roles = {}, {}
    for a = 1, 5 do status[a] = "ALIVE" end
    roles[1] = "SEER"
    local info = {agent = 1, day = 1, role = "SEER", statusMap = status, roleMap = roles,
      talkList = {}, whisperList = {}, voteList = {}, lastDeadAgentList = {}}
    local agent = A.new()
    agent:initialize(info, {playerNum = 5})
    agent:update(info)
    local real = public(agent)
    local documented, required = {}, {}
    for name, optional in pairs(fields) do
      documented[name] = true
      if not optional then required[name] = true end
    end
    assert.are.same({}, missing(real, documented))
    assert.are.same({}, missing(required, real))
    assert.is_true(#sorted(required) >= 20) -- the class block was found
  end)
end)
