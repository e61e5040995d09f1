/* aiwolf.protocol is run once per sandbox and each game's require gets a
 * copy of its table (sb_require.c, docs/sandbox.md "One sandbox, many
 * games"). An agent that vandalises everything of the module it can reach
 * (its table, the tables in it, the sentences' metatable, also reached as
 * s.__index) and that puts a fake protocol core into package.loaded and
 * package.preload before its first require finds the module whole in each
 * of its games: in the game that made the instance, in games played in the
 * renewed sandbox, and as in a new sandbox. An agent that makes the
 * instance where the module's protected require of the core fails does
 * not leave the next games without a parser. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cseat.h"
#include "game.h"
#include "luaseat.h"
#include "luaseat_talks.h"
#include "test.h"
#include "lua_game.h"

static const char *const agent_text =
    "local evil = {parse = function() return {verb = 'EVIL'} end,\n"
    "  validate = function() return true end, normalize = function() return 'EVIL' end}\n"
    "package.loaded['aiwolf.protocol_core'] = evil\n"
    "package.preload['aiwolf.protocol_core'] = function() return evil end\n"
    "local P = require 'aiwolf.protocol'\n"
    "local agent = {}\n"
    "function agent:getName()\n"
    "  local dirty = {}\n"
    "  local function mark(ok, what) if not ok then dirty[#dirty + 1] = what end end\n"
    "  local n = 0\n"
    "  for _ in pairs(P) do n = n + 1 end\n"
    "  mark(n == 43 and P.mark == nil, 'table')\n"
    "  mark(P.ANY == 'ANY' and P.has_parser == true and P['and'] == P.and_, 'constants')\n"
    "  mark(#P.ROLES == 6 and P.ROLES[1] == 'VILLAGER' and P.SPECIES[2] == 'WEREWOLF', 'lists')\n"
    "  mark(P.VERBS.VOTE == 1 and P.VERBS.REQUEST == 33 and P.VERBS.mark == nil, 'verbs')\n"
    "  mark(tostring(P.vote(2)) == 'VOTE Agent[02]', 'print')\n"
    "  mark(P.say('VOTE', 2) == 'VOTE Agent[02]', 'say')\n"
    "  mark(P.print(P.request(3, P.estimate(4, 'WEREWOLF'))) == 'REQUEST Agent[03] (ESTIMATE Agent[04] WEREWOLF)', 'print2')\n"
    "  local t = P.parse('VOTE Agent[01]')\n"
    "  mark(t and t.verb == 'VOTE' and tostring(t) == 'VOTE Agent[01]', 'parse')\n"
    "  mark(P.normalize('VOTE Agent[01]') == 'VOTE Agent[01]' and P.validate('EVIL') == nil, 'core')\n"
    "  mark(P.describe(P.vote(2)) == 'the speaker will vote for Agent[02]', 'describe')\n"
    "  local x = P.expand_any(P.vote(P.ANY), {1, 2})\n"
    "  mark(tostring(x) == 'OR (VOTE Agent[01]) (VOTE Agent[02])', 'expand')\n"
    "  mark(getmetatable(P.vote(1)) == 'sentence', 'metatable')\n"
    "  mark(not pcall(setmetatable, P.vote(1), {__tostring = function() return 'EVIL' end}), 'setmetatable')\n"
    "  mark(P.vote(1).mark == nil, 'index')\n"
    "  mark(P.vote(1).__index == nil and P.vote(1).__tostring == nil, 'hidden')\n"
    "  -- the vandal\n"
    "  P.mark = 1; P.ROLES[1] = 'X'; P.ROLES[7] = 'Y'; table.remove(P.SPECIES)\n"
    "  for k in pairs(P.VERBS) do P.VERBS[k] = nil end\n"
    "  P.VERBS.mark = 1\n"
    "  P.vote = function() return 'EVIL' end; P.parse = nil; P.print = nil; P.say = nil\n"
    "  pcall(function() getmetatable(P.over()).mark = 1 end)\n"
    "  pcall(rawset, getmetatable(P.over()), 'mark', 1)\n"
    "  pcall(function() local S = P.over().__index; S.mark = 1\n"
    "    S.__tostring = function() return 'EVIL' end; S.__index = function() return 'EVIL' end\n"
    "    S.__newindex = function() end; S.__len = function() return 0 end end)\n"
    "  for i = 1, 200 do P['k' .. i] = i end\n"
    "  for i = 1, 200 do P['k' .. i] = nil end\n"
    "  return (#dirty == 0 and 'clean' or 'dirty-' .. table.concat(dirty, ','))\n"
    "end\n"
    "return agent\n";

/* Makes the instance in a context of its choosing (mode.lua, beside it,
 * says which) where the module's own protected require of the protocol
 * core fails while the rest of it loads: nested more than 2000 calls deep
 * inside a pcall (where the sandbox's pcall refuses to nest), or just
 * below the C-call limit (the scan from too deep stops at the first depth
 * where require succeeds; today the module's string.format calls need as
 * deep a C stack as the core's loading, so that one failed the whole
 * require even before the module raised such failures). A game after it
 * that requires the module plainly must find the parser. */
static const char *const maker_text =
    "local mode = require 'mode'\n"
    "local function deep(n, f) if n == 0 then return f() end return (deep(n - 1, f)) end\n"
    "local function nest(d)\n"
    "  if d == 0 then return require 'aiwolf.protocol' end\n"
    "  local ok, r = pcall(nest, d - 1)\n"
    "  if not ok then error(r, 0) end\n"
    "  return r\n"
    "end\n"
    "if mode == 'nest' then\n"
    "  pcall(function() return deep(2100, function() return require 'aiwolf.protocol' end) end)\n"
    "elseif mode == 'cstack' then\n"
    "  for d = 300, 1, -1 do if pcall(nest, d) then break end end\n"
    "end\n"
    "local P = require 'aiwolf.protocol'\n"
    "local agent = {}\n"
    "function agent:getName()\n"
    "  local t = P.parse('VOTE Agent[01]')\n"
    "  return (P.has_parser and t and tostring(t) == 'VOTE Agent[01]') and 'parser' or 'noparser'\n"
    "end\n"
    "return agent\n";

static aw_seat *seat(const char *path, int budget_ms)
{
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.limits.budget_ms = budget_ms;
    aw_luaseat_talks(&lo); /* the protocol core, as every game has it */
    aw_error err;
    aw_seat *s = aw_luaseat_new(path, &lo, &err);
    CHECK_MSG(s != NULL, "%s", err.msg);
    return s;
}

/* The instance made in the load check by an agent in mode `mode`; the
 * games after it require the module plainly. */
static void made_in_a_corner(const char *dir, const char *mode)
{
    char path[300], mode_path[300], text[100];
    snprintf(path, sizeof path, "%s/maker.lua", dir);
    snprintf(mode_path, sizeof mode_path, "%s/mode.lua", dir);
    lua_game_write(path, maker_text);
    snprintf(text, sizeof text, "return '%s'\n", mode);
    lua_game_write(mode_path, text);
    aw_seat *s = seat(path, 500);
    if (!s)
        return;
    lua_game_write(mode_path, "return 'plain'\n");
    for (uint64_t game = 1; game <= 2; game++) {
        aw_game_result res;
        char name[200];
        char *log = lua_game_play(s, game, &res);
        lua_game_name(log, name, sizeof name);
        CHECK_MSG(strcmp(name, "parser") == 0, "made in mode %s, game %d: %s", mode, (int)game, name);
        free(log);
    }
    CHECK_INT(aw_luaseat_sandboxes(s), 1);
    s->ops->free(s);
    unlink(path);
    unlink(mode_path);
}

int main(void)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "/tmp/aiwolf_shared_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/agent.lua", dir);
    lua_game_write(path, agent_text);

    aw_seat *reused = seat(path, 500);
    if (!reused)
        return test_done();
    for (uint64_t game = 1; game <= 4; game++) {
        aw_game_result res;
        char name[200];
        char *log = lua_game_play(reused, game, &res);
        lua_game_name(log, name, sizeof name);
        CHECK_MSG(strcmp(name, "clean") == 0, "game %d: %s", (int)game, name);
        /* The same game in a new sandbox (a budget the load check did not
         * use): the same log. */
        aw_seat *fresh = seat(path, 0);
        char *fresh_log = lua_game_play(fresh, game, &res);
        CHECK_INT(aw_luaseat_sandboxes(fresh), 2);
        fresh->ops->free(fresh);
        CHECK_MSG(strcmp(log, fresh_log) == 0, "game %d: the renewed sandbox's log differs from a new one's",
                  (int)game);
        free(log);
        free(fresh_log);
    }
    /* The load check's sandbox served the four games. */
    CHECK_INT(aw_luaseat_sandboxes(reused), 1);
    reused->ops->free(reused);
    unlink(path);
    made_in_a_corner(dir, "nest");
    made_in_a_corner(dir, "cstack");
    rmdir(dir);
    return test_done();
}
