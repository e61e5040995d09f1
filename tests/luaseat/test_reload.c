/* Hot reload of Lua agents (luaseat's watch and watch_live options):
 *  - between games, a changed file that loads replaces the old version, and
 *    one that does not load leaves the old version playing;
 *  - during a game, a changed file's functions are swapped into the running
 *    agent while its own state (fields of self) is kept. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cseat.h"
#include "game.h"
#include "luaseat.h"
#include "test.h"
#include "wrap_seat.h"
#include "lua_game.h"

static char dir[256], path[300], modpath[300];
static int generation;

/* Writes the agent file with a distinct modification time each time, so a
 * change is seen even within one clock tick. */
static void write_file(const char *file, const char *text)
{
    FILE *f = fopen(file, "w");
    fputs(text, f);
    fclose(f);
    struct timespec ts[2] = {{1000000 + ++generation, 0}, {1000000 + generation, 0}};
    utimensat(AT_FDCWD, file, ts, 0);
}

static void write_agent(const char *text)
{
    write_file(path, text);
}

static char *play(aw_seat *lua, uint64_t seed, aw_seat *wrapper)
{
    aw_game_result res;
    char *log = lua_game_play(wrapper ? wrapper : lua, seed, &res);
    CHECK_INT(res.faults, 0);
    return log;
}

/* A seat that rewrites the agent file after its third request, to
 * next_agent (not freed through ops: the test frees the inner seat). */
static const char *next_agent;

static int rw_request(wrap_seat *w, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                      aw_seat_reply *reply, aw_seat_fault *f)
{
    if (w->calls == 3)
        write_agent(next_agent);
    return wrap_pass(w, kind, info, set, reply, f);
}

int main(void)
{
    /* The agent lives in a folder of its own: watching walks the folder. */
    snprintf(dir, sizeof dir, "/tmp/aiwolf_reload_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/agent.lua", dir);
    snprintf(modpath, sizeof modpath, "%s/helper.lua", dir);
    write_agent("return { getName = function() return 'v1' end }\n");
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.watch = true;
    aw_error err;
    aw_seat *lua = aw_luaseat_new(path, &lo, &err);
    CHECK_MSG(lua != NULL, "%s", err.msg);

    char *log = play(lua, 1, NULL);
    CHECK(strstr(log, "0,status,1,") && strstr(log, ",v1\n"));
    free(log);

    /* A broken version: the old one plays on. */
    write_agent("return { getName = function() return 'v2' end\n");
    log = play(lua, 2, NULL);
    CHECK_MSG(strstr(log, ",v1\n") && !strstr(log, ",v2\n"), "a broken version replaced the old one");
    free(log);

    /* A good version: it plays the next game. */
    write_agent("return { getName = function() return 'v3' end }\n");
    log = play(lua, 3, NULL);
    CHECK_MSG(strstr(log, ",v3\n") != NULL, "the new version did not play");
    free(log);
    /* A module in the agent's folder: a broken change keeps the version in
     * memory (module included) playing; a good one is picked up. */
    write_file(modpath, "return { name = 'm1' }\n");
    write_agent("local h = require 'helper'\nreturn { getName = function() return h.name end }\n");
    log = play(lua, 5, NULL);
    CHECK_MSG(strstr(log, ",m1\n") != NULL, "the module's version did not play");
    free(log);
    write_file(modpath, "return { name = 'm2' \n");
    log = play(lua, 6, NULL);
    CHECK_MSG(strstr(log, ",m1\n") != NULL, "a broken module replaced the version in memory");
    free(log);
    write_file(modpath, "return { name = 'm3' }\n");
    log = play(lua, 7, NULL);
    CHECK_MSG(strstr(log, ",m3\n") != NULL, "the module's new version did not play");
    free(log);
    lua->ops->free(lua);
    unlink(modpath);

    /* Mid-game: the new talk() is used at once, and the state counted in
     * self by update() survives the swap (finish() raises otherwise, which
     * the game would count as a fault). */
    write_agent("local a = {}\n"
                "function a:getName() return 'live' end\n"
                "function a:update(info) self.seen = (self.seen or 0) + 1 end\n"
                "function a:talk() return 'Over' end\n"
                "return a\n");
    lo.watch = false;
    lo.watch_live = true;
    lua = aw_luaseat_new(path, &lo, &err);
    CHECK(lua != NULL);
    next_agent = "local a = {}\n"
                 "function a:getName() return 'live2' end\n"
                 "function a:update(info) self.seen = self.seen + 1 end\n"
                 "function a:talk() return 'Skip' end\n"
                 "function a:finish() assert(self.seen > 3, 'state lost') end\n"
                 "return a\n";
    wrap_seat rw;
    wrap_seat_init(&rw, lua, rw_request);
    log = play(lua, 4, &rw.base);
    CHECK_MSG(strstr(log, ",1,Skip\n") != NULL, "the swapped-in talk() was not used");
    CHECK_MSG(strstr(log, ",1,Over\n") == NULL || strstr(log, ",1,Skip\n") != NULL, "no Skip after the swap");
    free(log);
    lua->ops->free(lua);
    unlink(path);
    rmdir(dir);
    return test_done();
}
