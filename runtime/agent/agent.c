/* agent: the one way to make a Lua agent's seat (agent.h). */
#include "agent.h"

#include <string.h>

#include "childseat.h"
#include "luaseat_talks.h"
#include "util.h"

void aw_agent_luaseat_opts(const aw_agent_opts *opts, aw_luaseat_opts *lo)
{
    memset(lo, 0, sizeof *lo);
    lo->limits = opts->limits;
    lo->output = opts->output;
    lo->watch = opts->watch;
    lo->watch_live = opts->watch_live;
    lo->number_games = opts->number_games;
    lo->profile = opts->profile;
    lo->no_load_check = opts->no_load_check;
    aw_luaseat_talks(lo);
}

/* The Lua seat made in the host and run in a child seat. */
static aw_seat *isolated(const char *path, const aw_agent_opts *opts, aw_error *err)
{
    if (opts->watch || opts->watch_live || opts->profile || opts->number_games) {
        aw_fail(err, AW_EINVAL, "%s: reloading, profiling and numbering games need the agent in process", path);
        return NULL;
    }
    aw_childseat_opts co;
    memset(&co, 0, sizeof co);
    co.limits = opts->limits;
    co.output = opts->output;
    /* By default the agent may read its own folder, where its modules are
     * (as in process: the Lua seat's module folder). */
    char dir[4096];
    if (!co.limits.read_dir) {
        const char *slash = strrchr(path, '/');
        if (slash)
            snprintf(dir, sizeof dir, "%.*s", slash > path ? (int)(slash - path) : 1, path);
        else
            snprintf(dir, sizeof dir, ".");
        co.limits.read_dir = dir;
    }
    /* Each child parses a talk only when its agent reads `parsed`. */
    aw_luaseat_opts lo;
    aw_agent_luaseat_opts(opts, &lo);
    co.talk = aw_luaseat_talks_deferred(&lo);
    co.child_prepare = aw_luaseat_child_prepare;
    /* One child per seat for all the games: each game's INITIALIZE starts a
     * fresh agent instance in it (or, with keep_instance, the first one
     * plays on), and only a child lost in a game is forked again for the
     * next. */
    co.persistent = true;
    co.keep_instance = opts->keep_instance;
    aw_luaseat_spec m = {path, &lo}; /* used by aw_childseat_new alone */
    return aw_childseat_new(aw_luaseat_make, &m, &co, err);
}

/* A message that does not name the agent's file (the budget or the memory
 * cap met while the file ran at load): says which file. */
static void name_the_file(const char *path, aw_error *err)
{
    if (!err || strncmp(err->msg, path, strlen(path)) == 0)
        return;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    snprintf(err->msg, sizeof err->msg, "%.200s: at load, before any game: %.250s", path, msg);
}

static aw_seat *loaded(const char *path, const aw_agent_opts *opts, aw_error *err)
{
    if (opts->limits.isolate)
        return isolated(path, opts, err);
    if (opts->keep_instance) {
        aw_fail(err, AW_EINVAL, "%s: keeping one agent instance needs the agent isolated", path);
        return NULL;
    }
    aw_luaseat_opts lo;
    aw_agent_luaseat_opts(opts, &lo);
    return aw_luaseat_new(path, &lo, err);
}

aw_seat *aw_agent_new(const char *path, const aw_agent_opts *opts, aw_error *err)
{
    aw_seat *seat = loaded(path, opts, err);
    if (!seat)
        name_the_file(path, err);
    return seat;
}
