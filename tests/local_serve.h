/* local_serve.h: the set-up that the tests of aw_netserver_run with local
 * seats only share (tests/net/test_serve_retry.c, tests/live/
 * test_serve_human.c, test_serve_wake.c; include after test.h): 5-player
 * games of the aiwolf preset with the talk hooks, every seat local. */
#ifndef TESTS_LOCAL_SERVE_H
#define TESTS_LOCAL_SERVE_H

#include <stdint.h>
#include <string.h>

#include "netserver.h"
#include "talkhooks.h"

/* Fills *set with the preset and *no (cleared first) for `games` games
 * from seed, `parallel` at once, each of the five seats local, the hooks'
 * user data ud; the caller sets make_local and the hooks it wants. */
static inline void local_serve_opts(aw_netserver_opts *no, aw_settings *set, uint64_t seed, long games, int parallel,
                                    void *ud)
{
    CHECK(aw_settings_preset(set, "aiwolf", 5, NULL) == 0);
    memset(no, 0, sizeof *no);
    no->game.settings = set;
    no->game.seed = seed;
    aw_talkhooks_game(&no->game);
    no->games = games;
    no->parallel = parallel;
    no->time_limit_ms = 1000;
    for (int a = 1; a <= 5; a++)
        no->local[a] = true;
    no->ud = ud;
}

#endif
