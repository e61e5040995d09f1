-- Specs for agents/strong's model (strong/model.lua): how it reads a seer
-- claimant's WEREWOLF on a rival seer claimant (docs/strategy.md, "Fifteen
-- players against the official sample"). The facts are built by hand in the
-- shape M.facts reads from an aiwolf.agent agent.
package.path = (os.getenv("PWD") or ".") .. "/agents/strong/?.lua;" .. package.path
local M = require "strong.model"

local ROLES15 = {VILLAGER = 8, SEER = 1, MEDIUM = 1, BODYGUARD = 1, WEREWOLF = 3, POSSESSED = 1}
local ROLES5 = {VILLAGER = 2, SEER = 1, WEREWOLF = 1, POSSESSED = 1}

-- A villager's view: claims {[agent] = role}, reports {{who, verb, target, species}}.
local function view(n, me, claims, reports)
  local status = {}
  for a = 1, n do status[a] = "ALIVE" end
  local rep = {}
  for i, r in ipairs(reports) do
    rep[i] = {who = r[1], verb = r[2], target = r[3], species = r[4], day = 1}
  end
  return {info = {statusMap = status, roleMap = {}}, setting = {roleNumMap = n == 15 and ROLES15 or ROLES5},
    me = me, role = "VILLAGER", votes = {}, killed = {}, divined = {}, identified = {},
    claims = claims, reports = rep}
end

local function solve(v)
  return M.solve(M.facts(v, false))
end

describe("strong.model", function()
  -- Agent 5 claims seer and finds 1 human; 1 counter-claims and calls 5 a
  -- werewolf; 7 and 11 both claim medium (so one of them is a werewolf or
  -- the possessed): the game in which the village used to execute its seer.
  local claims = {[5] = "SEER", [1] = "SEER", [7] = "MEDIUM", [11] = "MEDIUM"}
  local reports = {{1, "DIVINED", 5, "WEREWOLF"}, {5, "DIVINED", 1, "HUMAN"}}

  it("at 15 players takes the accuser of a seer claimant for the possessed", function()
    local m = solve(view(15, 4, claims, reports))
    assert.is_true(m.pposs[1] > 0.6, "pposs[1] = " .. m.pposs[1])
    assert.is_true(m.pgen.SEER[5] > 0.6, "pgen.SEER[5] = " .. m.pgen.SEER[5])
    assert.is_true(m.pw[5] < 0.3, "pw[5] = " .. m.pw[5])
    -- the village vote's score (main.lua): the accuser, not the seer
    local function score(a) return m.pw[a] + 0.5 * m.pposs[a] - 0.3 * (m.pgen.SEER[a] + m.pgen.MEDIUM[a]) end
    assert.is_true(score(1) > score(5))
  end)

  it("weighs the accusation only at 15 players, and only a seer claimant's", function()
    local saved = M.W.possCallsSeer15
    local function run(n, me, c, r)
      M.W.possCallsSeer15 = 1
      local a = solve(view(n, me, c, r))
      M.W.possCallsSeer15 = saved
      return a, solve(view(n, me, c, r))
    end
    -- 15 players: the weight moves the figures
    local off, on = run(15, 4, claims, reports)
    assert.is_true(on.pposs[1] > off.pposs[1] + 0.1)
    -- 5 players: the same two seer claimants, nothing changes
    local off5, on5 = run(5, 4, {[5] = "SEER", [1] = "SEER"}, reports)
    for a = 1, 5 do
      assert.are.equal(off5.pw[a], on5.pw[a])
      assert.are.equal(off5.pposs[a], on5.pposs[a])
    end
    -- a medium claimant's IDENTIFIED WEREWOLF on a seer claimant is no such sign
    local offm, onm = run(15, 4, {[5] = "SEER", [9] = "SEER", [7] = "MEDIUM", [10] = "MEDIUM"},
      {{9, "DIVINED", 1, "HUMAN"}, {7, "IDENTIFIED", 5, "WEREWOLF"}, {10, "IDENTIFIED", 5, "HUMAN"}})
    for a = 1, 15 do
      assert.are.equal(offm.pw[a], onm.pw[a])
    end
  end)
end)
