/* Nothing of one game survives into the next, although later games load the
 * agent (and, when watching, its folder's modules) from bytecode compiled
 * once: an agent that counts in a local of its file, in a module's table, in
 * a global and in a field of the string library sees 1 in every game; and a
 * module whose file changed is compiled again. */
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

static char *play(aw_seat *lua, uint64_t seed)
{
    aw_game_result res;
    char *log = lua_game_play(lua, seed, &res);
    CHECK_INT(res.faults, 0);
    return log;
}

int main(void)
{
    char dir[256], path[300], modpath[300];
    snprintf(dir, sizeof dir, "/tmp/aiwolf_fresh_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/agent.lua", dir);
    snprintf(modpath, sizeof modpath, "%s/counts.lua", dir);
    lua_game_write(modpath, "return { n = 0 }\n");
    lua_game_write(path, "local m = require 'counts'\n"
                     "local count = 0\n"
                     "local agent = {}\n"
                     "function agent:getName()\n"
                     "  count = count + 1; m.n = m.n + 1; counter = (counter or 0) + 1\n"
                     "  string.seen = (string.seen or 0) + 1\n"
                     "  return 'g' .. count .. '-' .. m.n .. '-' .. counter .. '-' .. string.seen\n"
                     "end\n"
                     "function agent:finish() assert(count == 1 and m.n % 10 == 1 and counter == 1) end\n"
                     "return agent\n");
    for (int watch = 0; watch <= 1; watch++) {
        aw_luaseat_opts lo;
        memset(&lo, 0, sizeof lo);
        lo.watch = watch;
        aw_error err;
        aw_seat *lua = aw_luaseat_new(path, &lo, &err);
        CHECK_MSG(lua != NULL, "%s", err.msg);
        if (!lua)
            break;
        for (int game = 1; game <= 3; game++) {
            char *log = play(lua, (uint64_t)game);
            CHECK_MSG(strstr(log, "0,status,1,") && strstr(log, ",g1-1-1-1\n"),
                      "game %d (watch %d) saw the state of an earlier game", game, watch);
            free(log);
        }
        if (!watch) {
            /* Not watching, modules are read at each require: a changed
             * module is compiled again, not served from the compiled copy. */
            lua_game_write(modpath, "return { n = 10 }\n");
            char *log = play(lua, 4);
            CHECK_MSG(strstr(log, ",g1-11-1-1\n") != NULL, "a changed module was not read again");
            free(log);
            lua_game_write(modpath, "return { n = 0 }\n");
            log = play(lua, 5);
            CHECK_MSG(strstr(log, ",g1-1-1-1\n") != NULL, "the module's first text did not come back");
            free(log);
        }
        lua->ops->free(lua);
    }
    unlink(modpath);
    unlink(path);
    rmdir(dir);
    return test_done();
}
