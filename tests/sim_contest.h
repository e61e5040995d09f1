/* sim_contest.h: what the rating's test and benchmark share for games
 * simulated from known skills (tests/contest/test_rating.c,
 * bench/rating_bench.c): a uniform draw, and the schedule of a seed2015
 * contest of 15-player games. Needs core and schedule.c. */
#ifndef TESTS_SIM_CONTEST_H
#define TESTS_SIM_CONTEST_H

#include <stdint.h>
#include <string.h>

#include "rng.h"
#include "schedule.h"
#include "settings.h"

/* A uniform draw in (0, 1), never 0 or 1 (so log and 1/x are finite). */
static inline double sim_unif(aw_rng *r)
{
    return ((double)(aw_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

/* Builds the schedule of a seed2015 contest of n entries in 15-player games
 * of the default roles, games_per_entry games each, every deal played in
 * `duplicate` copies (0: plain games); aw_schedule_build's result. */
static inline int sim_schedule(aw_schedule *s, int n, long games_per_entry, int duplicate, uint64_t seed,
                               aw_error *err)
{
    aw_schedule_opts o;
    memset(&o, 0, sizeof o);
    o.format = AW_FORMAT_SEED2015;
    o.nentries = n;
    o.nplayers = 1;
    o.players[0] = 15;
    o.games_per_entry = games_per_entry;
    o.seed = seed;
    o.duplicate = duplicate;
    if (aw_default_roles(15, o.role_count[15], err) < 0)
        return -1;
    return aw_schedule_build(s, &o, err);
}

#endif
