/* luaseat: a seat played by a Lua agent in this process. The agent is a Lua
 * file that returns a table of optional methods (getName, initialize, update,
 * dayStart, talk, whisper, vote, divine, guard, attack, finish), called with
 * `:` so self is the table. Each game gets a fresh sandbox (aw_sandbox) in
 * which the file is run again, so nothing carries over between games. Every
 * call — building the `info` table, `update`, the method — runs as one
 * protected call under the sandbox's budget; a fault gives the driver no
 * answer, so the rules' substitute applies.
 *
 * Uses sandbox (Lua), seat, view, util.
 * Ownership: aw_luaseat_new returns a seat owned by the caller
 * (seat->ops->free). */
#ifndef AW_LUASEAT_H
#define AW_LUASEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agentlimits.h"
#include "profile.h"
#include "seat.h"

/* Only a pointer type is needed here: users of this header (the CLI, the
 * tests) need not see Lua's headers. */
typedef struct lua_State lua_State;

typedef struct aw_luaseat_opts {
    /* The agent's limits (agentlimits.h), of which this seat acts on
     * budget_ms (per call; 0: the sandbox's default, 100; the CLI passes
     * the game's timeLimit), memory_bytes (0: the sandbox's default, 64
     * MiB) and work_budget (0: time only); isolate and read_dir are the
     * child seat's (the agent's modules come from its file's folder). */
    aw_limits limits;
    FILE *output;         /* where the agent's print() goes (prefixed with its agent), or NULL to drop it */
    /* Pushes the parsed form of a talk (aw_talk.parsed) as a Lua value; when
     * NULL, talks carry no `parsed` field. */
    void (*push_parsed)(lua_State *L, const void *parsed);
    /* Parses text under mode and pushes its tree as push_parsed does,
     * returning 1; returns 0 (pushing nothing) if it does not parse. Used
     * for a talk's `parsed` read when the host's tree is gone (a talk of an
     * earlier day); when NULL, such reads give nil. */
    int (*push_parsed_text)(lua_State *L, const char *text, size_t len, aw_validation mode);
    /* Registers extra C modules in a new sandbox (e.g. the protocol core). */
    int (*prepare)(void *sandbox, aw_error *err);
    /* Hot reload: before each game, look whether the agent file changed;
     * load a changed version only if it loads cleanly (the old version plays
     * on otherwise, and the problem is reported to `output`). */
    bool watch;
    /* Mid-game reload too: before each call, a changed file that loads has
     * its functions swapped into the running agent's table, keeping the
     * agent's own fields (safe when the agent keeps its state in self, not
     * in locals of the file). */
    bool watch_live;
    /* Prefix what the agent prints with the game's number too ("[game 3
     * Agent[02] name] ..."), for runs of many games. Games are counted
     * from 1 by the seat's begin calls. */
    bool number_games;
    /* Benchmarks only (bench/overhead_bench): the agent's sandbox has no
     * budget and no memory cap (aw_sandbox_limits.unguarded). */
    bool unguarded;
    /* Sample where the agent's Lua runs (aw_sandbox_limits.profile), in all
     * the seat's sandboxes; read it with aw_luaseat_profile. */
    bool profile;
    /* Do not run the agent's file at creation to check that it loads: the
     * agent plays in a confined child (contests), where no untrusted code
     * runs in the parent and a broken file shows as begin's fault. */
    bool no_load_check;
} aw_luaseat_opts;

/* Reads the agent file and checks that it loads and returns a table (in a
 * sandbox that serves the first game when it has that game's budget), so
 * that a missing or broken file is reported at once with file:line.
 *
 * A seat plays its games one after another in one sandbox, renewed for each
 * game (aw_sandbox_renew: a fresh agent instance in a fresh environment);
 * a new sandbox is made after a game in which a call failed, for a new
 * version of the agent, and for a budget other than the sandbox's. */
aw_seat *aw_luaseat_new(const char *path, const aw_luaseat_opts *opts, aw_error *err);

/* How many sandboxes the seat made so far (for tests and benchmarks). */
long aw_luaseat_sandboxes(const aw_seat *seat);

/* Bytes the seat's agent states allocated so far, in all its sandboxes
 * (aw_sandbox_allocated; for benchmarks). */
uint64_t aw_luaseat_allocated(const aw_seat *seat);

/* The seat's samples of where its agent's Lua ran (opts.profile, profile.h),
 * owned by the seat; NULL without opts.profile. */
const aw_profile *aw_luaseat_profile(const aw_seat *seat);

/* A Lua seat to be made later with its output stream given then: the maker
 * a child seat takes (childseat.h's aw_childseat_make, ud an
 * aw_luaseat_spec). */
typedef struct aw_luaseat_spec {
    const char *path;
    const aw_luaseat_opts *opts; /* copied, with output replaced */
} aw_luaseat_spec;
aw_seat *aw_luaseat_make(void *spec, FILE *output, aw_error *err);
/* For a child seat's child_prepare (childseat.h): starts the sandbox's
 * watchdog thread before the child confines itself
 * (aw_sandbox_watchdog_start); returns 1 when it runs. */
int aw_luaseat_child_prepare(void);

#endif
