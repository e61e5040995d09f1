/* A seat plays its games in one sandbox, and each game's library tables
 * start as proxies of their templates (runtime/luahost/sb_proxy.c); an
 * agent that leaves marks everywhere it can reach (globals, library tables
 * and their metatables, the strings' methods, aiwolf.protocol's table and
 * the tables and functions in it, aiwolf.agent, LPeg, require's caches,
 * math.random's seed, the globals table (a proxy of its own until listed
 * or changed) and its metatable, 2 MB of memory in a global and 2 MB in
 * the agent's table (whose registry reference the next game's table
 * reuses); tests/luaseat/renew_carry.lua) finds
 * none of them in its next games:
 *  - every game's name is "carry-clean-...": no mark was found;
 *  - its math.random draw is the one an agent in a new sandbox draws in
 *    the same game (math.randomseed(42) of the last game does not count);
 *  - the heap at the start of games 2.. is the same in each of them and
 *    far below the 2 MB the last game kept (collectgarbage("count"));
 *  - and all of it in one sandbox (renewed, not replaced). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "game.h"
#include "luaseat.h"
#include "luaseat_talks.h"
#include "test.h"
#include "lua_game.h"

#define AGENT_FILE "tests/luaseat/renew_carry.lua"

static aw_seat *seat(void)
{
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.limits.budget_ms = 2000; /* generous: a loaded machine and sanitizers */
    lo.limits.memory_bytes = (size_t)32 << 20;
    aw_luaseat_talks(&lo);
    aw_error err;
    aw_seat *s = aw_luaseat_new(AGENT_FILE, &lo, &err);
    CHECK_MSG(s != NULL, "%s", err.msg);
    if (!s)
        exit(test_done());
    return s;
}

/* The name seat 1 gave in a game of the given seed: "carry-MARKS-DRAW-KB". */
static void play(aw_seat *s, uint64_t seed, char *name, size_t cap)
{
    aw_game_result res;
    char *log = lua_game_play(s, seed, &res);
    lua_game_name(log, name, cap);
    free(log);
}

/* Splits "carry-MARKS-DRAW-KB" into its parts (0 when it is not that). */
static int parse(char *name, char **marks, long *draw, long *kb)
{
    char *k = strrchr(name, '-');
    if (strncmp(name, "carry-", 6) != 0 || !k || k == name + 5)
        return 0;
    *k = '\0';
    char *d = strrchr(name, '-');
    if (!d || d < name + 6)
        return 0;
    *d = '\0';
    *marks = name + 6;
    *draw = strtol(d + 1, NULL, 10);
    *kb = strtol(k + 1, NULL, 10);
    return 1;
}

int main(void)
{
    aw_seat *renewed = seat();
    long first_kb = -1;
    for (int game = 1; game <= 6; game++) {
        char name[600], fresh_name[600];
        play(renewed, (uint64_t)(100 + game), name, sizeof name);
        aw_seat *fresh = seat();
        play(fresh, (uint64_t)(100 + game), fresh_name, sizeof fresh_name);
        fresh->ops->free(fresh);
        char *marks, *fresh_marks;
        long draw, kb, fresh_draw, fresh_kb;
        if (!parse(name, &marks, &draw, &kb) || !parse(fresh_name, &fresh_marks, &fresh_draw, &fresh_kb)) {
            CHECK_MSG(0, "game %d: names %s and %s", game, name, fresh_name);
            continue;
        }
        CHECK_MSG(strcmp(fresh_marks, "clean") == 0, "game %d: a new sandbox found marks: %s", game, fresh_marks);
        CHECK_MSG(strcmp(marks, "clean") == 0, "game %d: the renewed sandbox found the last game's marks: %s", game,
                  marks);
        CHECK_MSG(draw == fresh_draw, "game %d: math.random drew %ld, in a new sandbox %ld", game, draw, fresh_draw);
        if (game >= 2) {
            CHECK_MSG(kb < 1024, "game %d: the heap at its start is %ld KiB (the last game kept 2 MiB)", game, kb);
            if (first_kb < 0)
                first_kb = kb;
            CHECK_MSG(kb == first_kb, "game %d: the heap at its start is %ld KiB, in game 2 %ld KiB", game, kb,
                      first_kb);
        }
    }
    CHECK_INT(aw_luaseat_sandboxes(renewed), 1);
    renewed->ops->free(renewed);
    return test_done();
}
