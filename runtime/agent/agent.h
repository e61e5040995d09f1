/* agent: the one way to make a Lua agent's seat. A command fills one
 * limits value (aw_limits, core/agentlimits.h: budget, memory, work,
 * isolation, the folder it may read) from its options and passes it whole,
 * in aw_agent_opts, to aw_agent_new, which makes the seat in this process (luaseat) or in a
 * confined child (childseat), with the protocol's talk hooks wired the way
 * each needs them (luaseat_talks.h). `play`, `serve`, `connect`, `lint` and
 * the contest's workers all make their agents here.
 *
 * Uses luaseat, luaseat_talks (luahost) and childseat (isolate): the only
 * library that sees both.
 *
 * Ownership: aw_agent_new returns a seat owned by the caller
 * (seat->ops->free). opts->output is borrowed and must outlive the seat;
 * everything else in opts is copied. */
#ifndef AW_AGENT_H
#define AW_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "agentlimits.h"
#include "luaseat.h"
#include "seat.h"

typedef struct aw_agent_opts {
    aw_limits limits; /* handed on whole to the seat (agentlimits.h) */
    FILE *output; /* where the agent's print() goes (prefixed with its agent), or NULL to drop it */
    /* In process only (aw_agent_new refuses them with limits.isolate): hot
     * reload between games and within one, games numbered in what the agent
     * prints, where its Lua runs sampled (aw_luaseat_opts says more). */
    bool watch;
    bool watch_live;
    bool number_games;
    bool profile;
    /* Isolated only. The child keeps one agent instance for all the games
     * it plays (aw_childseat_opts.keep_instance: the regulation's sets). */
    bool keep_instance;
    /* Isolated only: do not run the agent's file in this process to check
     * that it loads (the contest's workers, where no entry's code runs in
     * the parent); a broken file then shows as the first game's fault. */
    bool no_load_check;
} aw_agent_opts;

/* The in-process Lua seat's options for opts (limits, output, the reload
 * and profile switches, the talk hooks of aw_luaseat_talks): for what takes
 * aw_luaseat_opts itself (aw_lualint). */
void aw_agent_luaseat_opts(const aw_agent_opts *opts, aw_luaseat_opts *lo);

/* Makes the seat of the agent in file path: with opts->limits.isolate, a
 * child seat (childseat.h) that keeps one confined child for all its games
 * and starts a fresh agent instance in it at each game's INITIALIZE, unless
 * keep_instance; otherwise a Lua seat in this process (luaseat.h). Unless
 * no_load_check, the file is loaded once here, so that a missing or broken
 * file is reported at once. Returns NULL with err filled. */
aw_seat *aw_agent_new(const char *path, const aw_agent_opts *opts, aw_error *err);

#endif
