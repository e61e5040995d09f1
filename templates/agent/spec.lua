-- Plays a few games of {{NAME}} with the aiwolf binary and checks that they
-- finish with no fault (no error, time-out or bad reply). Run it from the
-- agent's folder with `busted` (it finds spec/*_spec.lua). It uses the aiwolf
-- that AIWOLF_BIN names, else the first aiwolf on your PATH, and prints which:
--   AIWOLF_BIN=/path/to/aiwolf busted
---@diagnostic disable: undefined-global
-- (this file runs under plain Lua 5.4 with busted, not in the sandbox)
local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function find_aiwolf()
  local env = os.getenv("AIWOLF_BIN")
  if env and env ~= "" then return env, "AIWOLF_BIN" end
  local p = io.popen("command -v aiwolf 2>/dev/null")
  local found = p and p:read("l")
  if p then p:close() end
  if found and found ~= "" then return found, "the PATH" end
  error("no aiwolf: none on the PATH and AIWOLF_BIN is not set; install aiwolf " ..
        "(docs/install.md) or run AIWOLF_BIN=/path/to/aiwolf busted", 0)
end
local bin, from = find_aiwolf()
print(("{{NAME}} spec: aiwolf %s (from %s)"):format(bin, from))

-- the agent's folder: the parent of this spec's folder
local here = debug.getinfo(1, "S").source:match("^@(.*)/spec/[^/]*$") or "."
local main = here .. "/main.lua"

-- Runs `aiwolf play ARGS` and returns its exit status and the events file's lines.
local function play(args)
  local events = os.tmpname()
  local cmd = sh_quote(bin) .. " play --quiet --events " .. sh_quote(events) .. " " .. args .. " 2>&1"
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  local ok, _, code = p:close()
  local lines = {}
  for line in io.lines(events) do lines[#lines + 1] = line end
  os.remove(events)
  return ok and 0 or code, lines, out
end

local function faults(lines)
  local found = {}
  for _, l in ipairs(lines) do
    if l:find('"fault"', 1, true) then found[#found + 1] = l end
  end
  return found
end

describe("{{NAME}}", function()
  it("lints clean", function()
    local p = assert(io.popen(sh_quote(bin) .. " lint -q " .. sh_quote(main) .. " 2>&1"))
    local out = p:read("a")
    assert.is_true(p:close(), out)
  end)

  it("plays 5-player games without faults", function()
    local code, lines, out = play("--games 10 --seed 1 " .. sh_quote(main) .. " " .. sh_quote(main))
    assert.are.equal(0, code, out)
    assert.are.same({}, faults(lines))
    local results = 0
    for _, l in ipairs(lines) do
      if l:find('"event":"result"', 1, true) then results = results + 1 end
    end
    assert.are.equal(10, results)
  end)

  it("plays every role at 15 players without faults", function()
    for _, role in ipairs{"SEER", "MEDIUM", "BODYGUARD", "WEREWOLF", "POSSESSED", "VILLAGER"} do
      local code, lines, out = play("--players 15 --seed 7 --deal 1=" .. role .. " " .. sh_quote(main))
      assert.are.equal(0, code, out)
      assert.are.same({}, faults(lines), role)
    end
  end)
end)
