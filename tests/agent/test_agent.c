/* test_agent: the one constructor of a Lua agent (agent.h) gives the limits
 * it is passed to the seat it makes, in process and in a confined child
 * alike. Each case plays a 5-player game with the agent in seat 1 (C random
 * players in the others) and reads the seat's faults from the result and
 * the events:
 *  - the memory cap: talk builds an array of a million numbers (some
 *    16 MiB); under an 8 MiB cap that is a memory fault, under the default
 *    64 MiB none;
 *  - the work budget: the same loop under 10,000 work units is a time-out
 *    "work budget of 10000 units exceeded", without one none;
 *  - the time budget: a talk that never returns stops with "time budget of
 *    50 ms exceeded" (the events say the budget, so the test does not
 *    depend on how long anything takes);
 *  - isolation: an isolated seat has a child process running after its
 *    game (it keeps one for all its games), an in-process one none;
 *  - the folder the agent may read: isolated, a module beside the agent's
 *    file loads (the default read folder is the file's own), and with the
 *    read folder set to the folder above it too, but with the read folder
 *    set elsewhere it cannot (skipped on a kernel without Landlock);
 *  - options that need the agent in process (reload, profile) or isolated
 *    (keep_instance) are refused with a message, not ignored.
 * Uses agent, cseat, game, gamelog. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "confine.h"
#include "cseat.h"
#include "game.h"
#include "gamelog.h"
#include "test.h"

static char dir[64];

/* Writes dir/name with text. */
static void write_file(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        exit(test_done());
    fputs(text, f);
    fclose(f);
}

/* An agent whose first talk of a game runs body; every talk says Over. */
static void write_agent(const char *name, const char *body)
{
    char text[1024];
    snprintf(text, sizeof text,
             "local A = {}\n"
             "function A:getName() return 'probe' end\n"
             "function A:talk()\n"
             "if self.did then return 'Over' end\n"
             "self.did = true\n"
             "%s\n"
             "return 'Over' end\n"
             "return A\n",
             body);
    write_file(name, text);
}

/* Whether this process has a child that has not ended. */
static bool child_running(void)
{
    int st;
    return waitpid(-1, &st, WNOHANG) == 0;
}

typedef struct outcome {
    int faults[AW_FAULT_LOST + 1]; /* seat 1's, by kind */
    char *events;                  /* the events (JSON lines), malloc'd */
    bool child;                    /* a child ran after the game, before the seat was freed */
} outcome;

/* Plays one game with the agent dir/file in seat 1 under limits; the seat
 * must be made. */
static outcome play(const char *file, const aw_limits *limits)
{
    outcome out;
    memset(&out, 0, sizeof out);
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    aw_agent_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.limits = *limits;
    aw_error err;
    aw_seat *seats[6];
    seats[1] = aw_agent_new(path, &ao, &err);
    CHECK_MSG(seats[1] != NULL, "%s: %s", path, err.msg);
    if (!seats[1])
        return out;
    for (int a = 2; a <= 5; a++)
        seats[a] = aw_cseat_random((uint64_t)a);
    aw_settings set;
    CHECK(aw_settings_preset(&set, "aiwolf", 5, &err) == 0);
    size_t len = 0;
    FILE *events = open_memstream(&out.events, &len);
    aw_gamelog log;
    aw_gamelog_init(&log, NULL, NULL, events);
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = &set;
    go.seed = 7;
    go.log = &log;
    aw_game_result res;
    memset(&res, 0, sizeof res);
    CHECK_MSG(aw_game_play(&go, seats, &res, &err) == 0, "%s", err.msg);
    aw_gamelog_free(&log);
    fclose(events);
    memcpy(out.faults, res.seat_faults[1], sizeof out.faults);
    out.child = child_running();
    for (int a = 1; a <= 5; a++)
        seats[a]->ops->free(seats[a]);
    CHECK_MSG(!child_running(), "%s", "a child is left after the seat was freed");
    return out;
}

static int total_faults(const outcome *o)
{
    int n = 0;
    for (int k = 0; k <= AW_FAULT_LOST; k++)
        n += o->faults[k];
    return n;
}

/* A game under l gives seat 1 at least one fault of kind, whose message in
 * the events holds text. */
static void expect_fault(const char *mode, const char *file, const aw_limits *l, aw_fault_kind kind,
                         const char *text)
{
    outcome o = play(file, l);
    CHECK_MSG(o.faults[kind] > 0 && o.events && strstr(o.events, text), "%s, %s: no fault \"%s\":\n%s", mode, file,
              text, o.events ? o.events : "");
    free(o.events);
}

static void limits_reach_the_seat(bool isolate)
{
    const char *mode = isolate ? "isolated" : "in process";
    aw_limits l;

    /* None of the limits is reached: no fault; a child only when isolated. */
    memset(&l, 0, sizeof l);
    l.budget_ms = 10000;
    l.isolate = isolate;
    outcome o = play("grow.lua", &l);
    CHECK_MSG(total_faults(&o) == 0, "%s: %d faults without a limit reached:\n%s", mode, total_faults(&o),
              o.events ? o.events : "");
    CHECK_MSG(o.child == isolate, "%s: a child %s after the game", mode, o.child ? "runs" : "does not run");
    free(o.events);

    /* The memory cap, the work budget, the time budget. */
    l.memory_bytes = (size_t)8 << 20;
    expect_fault(mode, "grow.lua", &l, AW_FAULT_MEMORY, "memory");
    l.memory_bytes = 0;
    l.work_budget = 10000;
    expect_fault(mode, "grow.lua", &l, AW_FAULT_TIMEOUT, "work budget of 10000 units exceeded");
    l.work_budget = 0;
    l.budget_ms = 50;
    expect_fault(mode, "spin.lua", &l, AW_FAULT_TIMEOUT, "time budget of 50 ms exceeded");
}

/* Isolated, the agent reads its own folder's modules by default, and no
 * folder but the one it is given. */
static void read_folder(void)
{
    if (!aw_confine_landlock()) {
        printf("read folder: skipped, this kernel has no Landlock\n");
        return;
    }
    aw_limits l;
    memset(&l, 0, sizeof l);
    l.budget_ms = 10000;
    l.isolate = true;
    outcome o = play("usemod.lua", &l);
    CHECK_MSG(total_faults(&o) == 0, "isolated: the module beside the agent did not load:\n%s",
              o.events ? o.events : "");
    free(o.events);
    /* A folder given is the one the child may read: the agent's parent
     * folder holds its modules too; a folder elsewhere does not. */
    l.read_dir = dir;
    o = play("sub/usemod.lua", &l);
    CHECK_MSG(total_faults(&o) == 0, "isolated: the module did not load from within the read folder given:\n%s",
              o.events ? o.events : "");
    free(o.events);
    l.read_dir = "tests/agent";
    o = play("usemod.lua", &l);
    CHECK_MSG(o.faults[AW_FAULT_ERROR] > 0, "isolated: the module loaded from outside the read folder:\n%s",
              o.events ? o.events : "");
    free(o.events);
}

static void refused(void)
{
    char path[128];
    snprintf(path, sizeof path, "%s/grow.lua", dir);
    aw_agent_opts ao;
    aw_error err;
    memset(&ao, 0, sizeof ao);
    ao.limits.isolate = true;
    ao.watch = true;
    err.msg[0] = '\0';
    CHECK(aw_agent_new(path, &ao, &err) == NULL && strstr(err.msg, "in process"));
    memset(&ao, 0, sizeof ao);
    ao.keep_instance = true;
    err.msg[0] = '\0';
    CHECK(aw_agent_new(path, &ao, &err) == NULL && strstr(err.msg, "isolated"));
    CHECK(!child_running());
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/aiwolf-test-agent-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    write_agent("grow.lua", "local t = {} for i = 1, 1000000 do t[i] = i end");
    write_agent("spin.lua", "while true do end");
    /* The module is required in a call, when an isolated agent runs in
     * its confined child. */
    write_file("probe_mod.lua", "return {word = 'Over'}\n");
    write_agent("usemod.lua", "local m = require 'probe_mod' assert(m.word == 'Over')");
    char sub[128];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    CHECK(mkdir(sub, 0700) == 0);
    write_file("sub/probe_mod.lua", "return {word = 'Over'}\n");
    write_agent("sub/usemod.lua", "local m = require 'probe_mod' assert(m.word == 'Over')");

    limits_reach_the_seat(false);
    limits_reach_the_seat(true);
    read_folder();
    refused();

    const char *files[] = {"grow.lua", "spin.lua", "probe_mod.lua", "usemod.lua", "sub/probe_mod.lua", "sub/usemod.lua"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(sub);
    rmdir(dir);
    return test_done();
}
