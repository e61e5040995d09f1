/* A seat plays its games in one sandbox, renewed between them, and an
 * agent that tries to pass something from one game to the next finds
 * nothing (tests/luaseat/renew_hostile.lua says what it does):
 *  - "struct": each game, what the agent sees (everything reachable from
 *    its globals, modules, LPeg, keys sorted; math.random draws; LPeg's
 *    backtrack stack; info and setting at every call, shown in its talks
 *    and votes) makes the game's whole log the one an agent in a new
 *    sandbox makes, after a game that did one hostile act (many leave the
 *    environment as it was made but for one subtle change);
 *  - "order": in one sandbox, pairs() lists the globals and the libraries
 *    in the same order every game, and keys added to a library go where
 *    they went in the first game (a game that removed and re-added a key,
 *    or grew a table and removed what it added, must not show);
 *  - "memory": after a game that grew the globals by 12 MB and removed
 *    what it added, grew its stack 150 000 calls deep, or left 12 MB in a
 *    global after running a module the next game does not require, the
 *    next game can allocate what a new sandbox can;
 *  - a failed getName, a time-out or a memory fault in the last call of a
 *    game: the next game gets a new sandbox;
 *  - LPeg's guards ignore what the agent made of its globals;
 *  - a known channel, shown and not checked: collectgarbage("count"). */
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

#define AGENT_FILE "tests/luaseat/renew_hostile.lua"

/* Plays a 5-player game with lua in seat 1: the CSV log (malloc'd) and the
 * name the agent gave. */
static char *play(aw_seat *lua, uint64_t seed, char *name, size_t cap)
{
    aw_game_result res;
    char *log = lua_game_play(lua, seed, &res);
    lua_game_name(log, name, cap);
    return log;
}

/* Writes renew_hostile.lua to path, with head as its first line. */
static void write_agent(const char *path, const char *head)
{
    size_t len;
    char *text = NULL;
    FILE *in = fopen(AGENT_FILE, "r");
    CHECK(in != NULL);
    if (!in)
        exit(test_done());
    text = malloc(1 << 20);
    len = fread(text, 1, (1 << 20) - 1, in);
    fclose(in);
    FILE *f = fopen(path, "w");
    fprintf(f, "%s\n", head);
    fwrite(text, 1, len, f);
    fclose(f);
    free(text);
}

static aw_seat *seat(const char *path, int budget_ms, size_t memory)
{
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.limits.budget_ms = budget_ms;
    lo.limits.memory_bytes = memory;
    aw_luaseat_talks(&lo);
    aw_error err;
    aw_seat *s = aw_luaseat_new(path, &lo, &err);
    CHECK_MSG(s != NULL, "%s", err.msg);
    if (!s)
        exit(test_done());
    return s;
}

/* The act the agent did in a game: its name's last part. */
static int act_of(const char *name)
{
    const char *dash = strrchr(name, '-');
    return dash ? atoi(dash + 1) : 0;
}

/* Every game's log is the one a new sandbox makes for it. */
static void struct_games(const char *path, int games)
{
    write_agent(path, "local MODE = 'struct'");
    aw_seat *reused = seat(path, 500, (size_t)30 << 20);
    int last_act = 0;
    unsigned acts = 0;
    for (int game = 1; game <= games; game++) {
        char name[120], fresh_name[120];
        char *log = play(reused, (uint64_t)game, name, sizeof name);
        aw_seat *fresh = seat(path, 0, (size_t)30 << 20);
        char *fresh_log = play(fresh, (uint64_t)game, fresh_name, sizeof fresh_name);
        fresh->ops->free(fresh);
        CHECK_MSG(strncmp(name, "struct-", 7) == 0, "game %d: the agent's name is %s", game, name);
        CHECK_MSG(strcmp(name, fresh_name) == 0, "game %d (after act %d): renewed sandbox saw %s, a new one %s",
                  game, last_act, name, fresh_name);
        if (strcmp(log, fresh_log) != 0) {
            size_t i = 0;
            while (log[i] && log[i] == fresh_log[i])
                i++;
            while (i > 0 && log[i - 1] != '\n')
                i--;
            CHECK_MSG(0, "game %d (after act %d): the log differs from a new sandbox's at\n  %.80s\n  %.80s", game,
                      last_act, log + i, fresh_log + i);
        }
        free(log);
        free(fresh_log);
        last_act = act_of(name);
        acts |= 1u << last_act;
    }
    CHECK_INT(aw_luaseat_sandboxes(reused), 1);
    reused->ops->free(reused);
    CHECK_MSG((acts & 0x3fffeu) == 0x3fffeu, "the acts tried: %#x", acts);
}

/* In one sandbox, every game lists its tables in the same order. */
static void order_games(const char *path, int games)
{
    write_agent(path, "local MODE = 'order'");
    aw_seat *reused = seat(path, 500, (size_t)30 << 20);
    char first[120] = "";
    int last_act = 0;
    for (int game = 1; game <= games; game++) {
        char name[120];
        free(play(reused, (uint64_t)game, name, sizeof name));
        CHECK_MSG(strncmp(name, "order-", 6) == 0, "game %d: the agent's name is %s", game, name);
        char *dash = strrchr(name, '-');
        if (dash)
            *dash = '\0';
        if (!first[0])
            snprintf(first, sizeof first, "%s", name);
        CHECK_MSG(strcmp(name, first) == 0, "game %d (after act %d): the tables' order %s, in game 1 %s", game,
                  last_act, name, first);
        last_act = dash ? atoi(dash + 1) : 0;
    }
    CHECK_INT(aw_luaseat_sandboxes(reused), 1);
    reused->ops->free(reused);
}

/* A game that grew a table and removed what it added, grew its stack, or
 * left 12 MB in its globals leaves the next game the memory a new sandbox
 * has. */
static void memory_games(const char *path)
{
    static const char *const heads[] = {
        "local MODE, BIG, BLOAT = 'memory', 14 << 20, true",    /* 12 MB of empty nodes in _G */
        "local MODE, BIG, BLOAT = 'memory', 14 << 20, 'stack'", /* 15 MB of stack */
        /* 12 MB in a global, and a module run (its kept chunk's _ENV is
         * those globals until it runs again: the next game does not) */
        "local MODE, BIG, BLOAT = 'memory', 14 << 20, 'module'",
    };
    for (int h = 0; h < 3; h++) {
        write_agent(path, heads[h]);
        aw_seat *s = seat(path, 2000, (size_t)32 << 20);
        for (int game = 1; game <= 3; game++) {
            char name[120];
            free(play(s, (uint64_t)game, name, sizeof name));
            CHECK_MSG(strcmp(name, "big-14680064") == 0,
                      "%s, game %d: no 14 MB string (28 MB at its peak) under a 32 MB cap: %s", heads[h], game, name);
        }
        /* The emptied nodes go with the last game's globals; the call
         * records of a deep recursion stay with the state (Lua frees half
         * of them per collection), so a new sandbox serves each game. */
        CHECK_INT(aw_luaseat_sandboxes(s), h == 1 ? 3 : 1);
        s->ops->free(s);
    }
}

static const char *const faulty[] = {
    /* an error in getName */
    "local agent = {}\n"
    "function agent:getName() error('no name') end\n"
    "return agent\n",
    /* a time-out in the last call */
    "local agent = {}\n"
    "function agent:getName() return 'loops' end\n"
    "function agent:finish() while true do end end\n"
    "return agent\n",
    /* a memory fault in the last call */
    "local agent = {}\n"
    "function agent:getName() return 'grows' end\n"
    "function agent:finish() local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end end\n"
    "return agent\n",
};

static void fault_games(const char *path)
{
    for (size_t i = 0; i < sizeof faulty / sizeof faulty[0]; i++) {
        FILE *f = fopen(path, "w");
        fputs(faulty[i], f);
        fclose(f);
        aw_seat *s = seat(path, 100, (size_t)8 << 20);
        for (int game = 1; game <= 3; game++) {
            char name[120];
            free(play(s, (uint64_t)game, name, sizeof name));
            CHECK_MSG(aw_luaseat_sandboxes(s) == game, "agent %d, game %d: %ld sandboxes", (int)i, game,
                      aw_luaseat_sandboxes(s));
        }
        s->ops->free(s);
    }
}

/* LPeg's guards (runtime/luahost/lua/lpeg_guard.lua) do not take the
 * agent's globals: a `type` that hides patterns, set before the first
 * require, does not switch the nesting bound off, in any game. */
static void guard_games(const char *path)
{
    FILE *f = fopen(path, "w");
    fputs("local rt = type\n"
          "type = function(v) local t = rt(v) if t == 'userdata' then return 'boolean' end return t end\n"
          "local lpeg = require 'lpeg'\n"
          "type = rt\n"
          "local agent = {}\n"
          "function agent:getName()\n"
          "  local ok, e = pcall(function() local p = lpeg.P'a' for i = 1, 1000 do p = -p end end)\n"
          "  return ok and 'unguarded' or tostring(e):match('nested too deeply') and 'guarded' or 'other'\n"
          "end\n"
          "return agent\n",
          f);
    fclose(f);
    aw_seat *s = seat(path, 1000, (size_t)32 << 20);
    for (int game = 1; game <= 2; game++) {
        char name[120];
        free(play(s, (uint64_t)game, name, sizeof name));
        CHECK_MSG(strcmp(name, "guarded") == 0, "game %d: LPeg's nesting bound with the agent's type(): %s", game,
                  name);
    }
    CHECK_INT(aw_luaseat_sandboxes(s), 1);
    s->ops->free(s);
}

/* Known and not closed (docs/sandbox.md, "One sandbox, many games"): the
 * heap size collectgarbage("count") reports at the start of a game depends
 * on the garbage the last game left (the renewal collects it only above
 * 256 KiB), so a game can pass some 18 bits to the next one through it;
 * addresses (tostring({})) are a channel of the same kind. A full
 * collection at every renewal would narrow the first one (a string table
 * grown by the last game would still show) at the cost of a collection per
 * game. Shown, not checked, unless AIWOLF_TEST_KNOWN_CHANNELS is set. */
static void count_channel(const char *path)
{
    long seen[2] = {0, 0};
    for (int garbage = 0; garbage <= 1; garbage++) {
        FILE *f = fopen(path, "w");
        fprintf(f, "local garbage = %s\n"
                   "local agent = {}\n"
                   "function agent:getName()\n"
                   "  local c = collectgarbage('count')\n"
                   "  if garbage then local t = {} for i = 1, 1500 do t[i] = i .. ('y'):rep(40) end end\n"
                   "  return ('count-%%d'):format(c // 1)\n"
                   "end\n"
                   "return agent\n",
                garbage ? "true" : "false");
        fclose(f);
        aw_seat *s = seat(path, 500, (size_t)32 << 20);
        char name[120];
        for (int game = 1; game <= 3; game++)
            free(play(s, (uint64_t)game, name, sizeof name));
        seen[garbage] = strncmp(name, "count-", 6) == 0 ? atol(name + 6) : -1;
        s->ops->free(s);
    }
    fprintf(stderr, "known channel: collectgarbage('count') at the start of a game: %ld KiB after a game that left "
                    "no garbage, %ld KiB after one that left some\n",
            seen[0], seen[1]);
    if (getenv("AIWOLF_TEST_KNOWN_CHANNELS"))
        CHECK_MSG(labs(seen[1] - seen[0]) < 64, "the last game's garbage shows: %ld KiB against %ld KiB", seen[1],
                  seen[0]);
}

int main(void)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "/tmp/aiwolf_renew_hostile_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/agent.lua", dir);
    struct_games(path, 60);
    order_games(path, 30);
    memory_games(path);
    fault_games(path);
    guard_games(path);
    count_channel(path);
    unlink(path);
    rmdir(dir);
    return test_done();
}
