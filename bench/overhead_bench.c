/* overhead_bench: what the sandbox's guards cost on whole games. The same
 * games (seeds 1..GAMES) are played by Lua seats in their usual sandboxes
 * and by seats whose sandboxes have no guards (aw_luaseat_opts.unguarded,
 * a benchmark-only mode: no watchdog, no hook, no clock reads, the C
 * library's allocator without a cap), in alternating rounds, and the CPU
 * time per game of each is compared. Both run the same host code otherwise
 * (info, the bounded library functions, the protocol).
 * usage: overhead_bench [GAMES] [PLAYERS] [AGENT...]
 *        (defaults 400, 15, agents/random.lua; several agents take the seats
 *        in turn) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "game.h"
#include "luaseat.h"
#include "luaseat_talks.h"
#include "talkhooks.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Plays seeds from..to-1 with fresh seats; returns the CPU seconds and adds
 * the bytes the agents' states allocated to *bytes (sandboxed seats only:
 * unguarded ones use the C library's allocator, which counts nothing). */
static double play(char **agents, int nagents, int players, bool unguarded, int from, int to, uint64_t *bytes)
{
    aw_settings set;
    aw_error err;
    if (aw_settings_preset(&set, "aiwolf", players, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    aw_luaseat_talks(&lo);
    lo.unguarded = unguarded;
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= players; a++) {
        seats[a] = aw_luaseat_new(agents[(a - 1) % nagents], &lo, &err);
        if (!seats[a]) {
            fprintf(stderr, "%s\n", err.msg);
            exit(1);
        }
    }
    double t0 = cpu_now();
    for (int g = from; g < to; g++) {
        aw_game_opts go;
        memset(&go, 0, sizeof go);
        aw_talkhooks_game(&go);
        go.settings = &set;
        go.seed = (uint64_t)g;
        aw_game_result res;
        if (aw_game_play(&go, seats, &res, &err) < 0) {
            fprintf(stderr, "%s\n", err.msg);
            exit(1);
        }
        if (res.faults) {
            fprintf(stderr, "game %d: %d faults\n", g, res.faults);
            exit(1);
        }
    }
    double t = cpu_now() - t0;
    for (int a = 1; a <= players; a++) {
        *bytes += aw_luaseat_allocated(seats[a]);
        seats[a]->ops->free(seats[a]);
    }
    return t;
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : 400;
    int players = argc > 2 ? atoi(argv[2]) : 15;
    char *def[] = {"agents/random.lua"};
    char **agents = argc > 3 ? argv + 3 : def;
    int nagents = argc > 3 ? argc - 3 : 1;
    if (games < 8 || players < 3 || players > AW_MAX_PLAYERS) {
        fprintf(stderr, "usage: overhead_bench [GAMES>=8] [PLAYERS 3..%d] [AGENT...]\n", AW_MAX_PLAYERS);
        return 2;
    }
    enum { ROUNDS = 8 };
    double t[2] = {0, 0};
    uint64_t bytes[2] = {0, 0};
    int per = games / ROUNDS;
    for (int r = 0; r < ROUNDS; r++)
        for (int m = 0; m < 2; m++) {
            int mode = (r + m) % 2; /* alternate which goes first */
            t[mode] += play(agents, nagents, players, mode == 1, 1 + r * per, 1 + (r + 1) * per, &bytes[mode]);
        }
    int n = per * ROUNDS;
    printf("%d games of %d players, %s%s: sandboxed %.3f ms/game (%.0f games/s), unguarded %.3f ms/game "
           "(%.0f games/s): the guards cost %+.1f %%\n",
           n, players, agents[0], nagents > 1 ? " and others" : "", t[0] / n * 1e3, n / t[0], t[1] / n * 1e3,
           n / t[1], (t[0] / t[1] - 1) * 100);
    printf("the agents' Lua states allocated %.0f KB a game (every block and growth, freed or not; each round's "
           "first game loads the agents)\n",
           (double)bytes[0] / n / 1024);
    return 0;
}
