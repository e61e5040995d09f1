/* A seat plays its games one after another in one sandbox, renewed between
 * them (aw_sandbox_renew), and nothing of one game reaches the next: an
 * agent that leaves marks everywhere it can write (globals, every library
 * table, the strings' methods, package.loaded and preload, LPeg's module,
 * our modules' tables, a global set through load, base functions and
 * library functions removed, a suspended coroutine, 12 MB kept in a global
 * under a 30 MB cap, math.random reseeded and drawn from) finds none of
 * them in its next game, and its first math.random draw is the one a new
 * sandbox makes for that game. A game with a failed call is followed by a
 * new sandbox. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cseat.h"
#include "game.h"
#include "luaseat.h"
#include "test.h"
#include "lua_game.h"

static const char *const agent_text =
    "local lpeg = require 'lpeg'\n"
    "local P = require 'aiwolf.protocol'\n"
    "local A = require 'aiwolf.agent'\n"
    "local agent = {}\n"
    "function agent:getName()\n"
    "  local dirty = {}\n"
    "  local function mark(ok, what) if not ok then dirty[#dirty + 1] = what end end\n"
    "  mark(rawget(_G, 'g_mark') == nil and rawget(_G, 'load_mark') == nil, 'G')\n"
    "  mark(string.mark == nil and (''). mark == nil, 'string')\n"
    "  string.probe = function() return 7 end\n"
    "  mark(('x'):probe() == 7, 'methods')\n"
    "  mark(table.mark == nil and math.mark == nil and os.mark == nil, 'libs')\n"
    "  mark(coroutine.mark == nil and utf8.mark == nil, 'libs2')\n"
    "  mark(package.loaded.mark == nil and package.preload.mark == nil, 'package')\n"
    "  mark(lpeg.mark == nil and P.mark == nil and A.mark == nil, 'modules')\n"
    "  mark(type(print) == 'function' and type(string.format) == 'function', 'removed')\n"
    "  mark(type(table.concat) == 'function' and type(pairs) == 'function', 'removed2')\n"
    "  mark(rawget(_G, 'big') == nil and rawget(_G, 'co') == nil, 'kept')\n"
    "  local r = math.random(1000000)\n"
    "  g_mark = 1; string.mark = 1; table.mark = 1; math.mark = 1; os.mark = 1\n"
    "  coroutine.mark = 1; utf8.mark = 1\n"
    "  package.loaded.mark = true; package.preload.mark = function() return 1 end\n"
    "  lpeg.mark = 1; P.mark = 1; A.mark = 1\n"
    "  load('load_mark = 1')()\n"
    "  math.randomseed(42); for i = 1, 10 do math.random() end\n"
    "  string.format = nil; print = nil; table.concat = nil; pairs = nil\n"
    "  co = coroutine.create(function() coroutine.yield(1) end); coroutine.resume(co)\n"
    "  big = string.rep('x', 12 << 20)\n"
    "  if FAIL_NOW then error('asked to fail') end\n"
    "  return (#dirty == 0 and 'clean' or 'dirty') .. '-' .. r .. (#dirty > 0 and '-' .. dirty[1] or '')\n"
    "end\n"
    "return agent\n";

/* Leaves one mark a game (or none), chosen by its first draw, in the
 * libraries only (no global): the next game finds none of them. The name
 * says the mark. */
static const char *const marker_text =
    "local agent = {}\n"
    "function agent:getName()\n"
    "  local ok = string.mark == nil and (''). mark == nil and type(string.format) == 'function'\n"
    "    and getmetatable(math) == nil and table.insert ~= table.remove and os.mark == nil\n"
    "    and package.mark == nil and type(coroutine.wrap) == 'function' and utf8.charpattern ~= 'x'\n"
    "    and package.loaded.string == string and package.preload.x == nil and math.pi > 3\n"
    "  local kind = math.random(12)\n"
    "  if kind == 1 then string.mark = 1\n"
    "  elseif kind == 2 then string.format = nil\n"
    "  elseif kind == 3 then setmetatable(math, {})\n"
    "  elseif kind == 4 then table.insert = table.remove\n"
    "  elseif kind == 5 then os.mark = {}\n"
    "  elseif kind == 6 then package.mark = 1\n"
    "  elseif kind == 7 then coroutine.wrap = nil\n"
    "  elseif kind == 8 then utf8.charpattern = 'x'\n"
    "  elseif kind == 9 then package.loaded = {}\n"
    "  elseif kind == 10 then package.preload.x = function() end\n"
    "  elseif kind == 11 then math.pi = 0\n"
    "  end\n"
    "  return (ok and 'clean' or 'dirty') .. '-' .. kind\n"
    "end\n"
    "return agent\n";

/* Plays a 5-player game with lua in seat 1; returns the name it gave. */
static void play(aw_seat *lua, uint64_t seed, char *name, size_t cap)
{
    aw_game_result res;
    char *log = lua_game_play(lua, seed, &res);
    lua_game_name(log, name, cap);
    free(log);
}

static aw_seat *seat(const char *path, int budget_ms)
{
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.limits.budget_ms = budget_ms;
    lo.limits.memory_bytes = (size_t)30 << 20;
    aw_error err;
    aw_seat *s = aw_luaseat_new(path, &lo, &err);
    CHECK_MSG(s != NULL, "%s", err.msg);
    return s;
}

int main(void)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "/tmp/aiwolf_renew_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/agent.lua", dir);
    lua_game_write(path, agent_text);

    aw_seat *reused = seat(path, 500);
    if (!reused)
        return test_done();
    for (uint64_t game = 1; game <= 4; game++) {
        char name[80], fresh_name[80];
        play(reused, game, name, sizeof name);
        /* The same game for an agent in a new sandbox (a budget the load
         * check did not use: no sandbox to renew). */
        aw_seat *fresh = seat(path, 0);
        play(fresh, game, fresh_name, sizeof fresh_name);
        CHECK_INT(aw_luaseat_sandboxes(fresh), 2);
        fresh->ops->free(fresh);
        CHECK_MSG(strncmp(name, "clean-", 6) == 0, "game %d found a mark of an earlier game: %s", (int)game, name);
        CHECK_MSG(strcmp(name, fresh_name) == 0, "game %d: renewed sandbox drew %s, a new one %s", (int)game, name,
                  fresh_name);
    }
    /* The load check's sandbox and the four games: one sandbox. */
    CHECK_INT(aw_luaseat_sandboxes(reused), 1);

    /* Games that leave one mark in a library, or none. */
    lua_game_write(path, marker_text);
    aw_seat *marker = seat(path, 500);
    if (!marker)
        return test_done();
    char last[80] = "";
    int kinds = 0;
    for (uint64_t game = 1; game <= 60; game++) {
        char name[80];
        play(marker, game, name, sizeof name);
        CHECK_MSG(strncmp(name, "clean-", 6) == 0, "game %d found the mark of the game before: %s (then %s)",
                  (int)game, name, last);
        int kind = atoi(name + 6);
        if (kind >= 1 && kind <= 12)
            kinds |= 1 << kind;
        snprintf(last, sizeof last, "%s", name);
    }
    CHECK_MSG(kinds == 0x1ffe, "the marks tried: %#x", (unsigned)kinds);
    CHECK_INT(aw_luaseat_sandboxes(marker), 1);
    marker->ops->free(marker);

    /* A failed call: the next game gets a new sandbox. */
    lua_game_write(path, "FAIL_NOW = true\n");
    FILE *f = fopen(path, "a");
    fputs(agent_text, f);
    fclose(f);
    aw_seat *failing = seat(path, 500);
    char name[80];
    play(failing, 1, name, sizeof name);
    CHECK_INT(aw_luaseat_sandboxes(failing), 1);
    play(failing, 2, name, sizeof name);
    CHECK_INT(aw_luaseat_sandboxes(failing), 2);
    failing->ops->free(failing);
    reused->ops->free(reused);
    unlink(path);
    rmdir(dir);
    return test_done();
}
