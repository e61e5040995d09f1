/* engine_bench: games per second of the engine alone — trivial C players
 * (random legal play, no Lua), no logs — at 5 and 15 players, on one core.
 * usage: engine_bench [GAMES]   (default 20000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "game.h"

static void run(const char *preset, int players, int games, bool with_csv)
{
    aw_settings set;
    aw_error err;
    if (aw_settings_preset(&set, preset, players, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= players; a++)
        seats[a] = aw_cseat_random((uint64_t)a);
    FILE *devnull = with_csv ? fopen("/dev/null", "w") : NULL;
    long days = 0;
    uint64_t t0 = aw_now_ns();
    for (int g = 0; g < games; g++) {
        aw_gamelog log;
        aw_gamelog_init(&log, devnull, NULL, NULL);
        aw_game_opts go;
        memset(&go, 0, sizeof go);
        go.settings = &set;
        go.seed = (uint64_t)g + 1;
        go.log = &log;
        aw_game_result res;
        if (aw_game_play(&go, seats, &res, &err) < 0) {
            fprintf(stderr, "%s\n", err.msg);
            exit(1);
        }
        days += res.days;
        aw_gamelog_free(&log);
    }
    double s = (aw_now_ns() - t0) / 1e9;
    printf("%-10s %2d players, C random seats, %-9s %8d games in %6.2f s: %9.0f games/s (%.1f days/game)\n", preset,
           players, with_csv ? "CSV log," : "no log,", games, s, games / s, (double)days / games);
    if (devnull)
        fclose(devnull);
    for (int a = 1; a <= players; a++)
        seats[a]->ops->free(seats[a]);
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : 20000;
    run("aiwolf", 5, games, false);
    run("aiwolf", 5, games, true);
    run("aiwolf", 15, games / 4, false);
    run("aiwolf", 15, games / 4, true);
    return 0;
}
