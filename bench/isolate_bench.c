/* isolate_bench: what isolation costs. Plays the same seeded games with the
 * agents in process and in confined child seats (childseat.h) and reports
 * games per second and the mean time per seat call (every request,
 * notifications included), for trivial C players (the pure cost of the
 * wire format, the socket round trip and the fork per game) and for
 * agents/random.lua (what a contest pays). Also the cost of starting a child
 * (fork, confinement, agent load, NAME) on its own.
 * usage: isolate_bench [GAMES]   (default 200; run from the project root) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "childseat.h"
#include "cseat.h"
#include "game.h"
#include "luaseat.h"
#include "luaseat_talks.h"
#include "talkhooks.h"

typedef enum { C_SEATS, LUA_SEATS } kind;

static aw_luaseat_opts lua_opts;

static aw_seat *make_c(void *ud, FILE *out, aw_error *err)
{
    (void)out;
    (void)err;
    return aw_cseat_random(*(uint64_t *)ud);
}

static aw_seat *make_lua(void *ud, FILE *out, aw_error *err)
{
    aw_luaseat_opts lo = lua_opts;
    lo.output = out;
    return aw_luaseat_new(ud, &lo, err);
}

static aw_seat *new_seat(kind k, bool isolated, const aw_settings *set, uint64_t *seed)
{
    aw_error err;
    aw_seat *s;
    if (!isolated) {
        s = k == C_SEATS ? aw_cseat_random(*seed) : aw_luaseat_new("agents/random.lua", &lua_opts, &err);
    } else {
        aw_childseat_opts co;
        memset(&co, 0, sizeof co);
        co.budget_ms = set->time_limit_ms;
        aw_game_opts hooks;
        memset(&hooks, 0, sizeof hooks);
        aw_talkhooks_game(&hooks);
        co.validate = hooks.validate;
        co.free_parsed = hooks.free_parsed;
        s = aw_childseat_new(k == C_SEATS ? make_c : make_lua, k == C_SEATS ? (void *)seed : "agents/random.lua",
                             &co, &err);
    }
    if (!s) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    return s;
}

static double run(kind k, bool isolated, int players, int games)
{
    aw_settings set;
    aw_error err;
    aw_settings_preset(&set, "aiwolf", players, &err);
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    uint64_t seeds[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= players; a++) {
        seeds[a] = (uint64_t)a;
        seats[a] = new_seat(k, isolated, &set, &seeds[a]);
    }
    uint64_t calls = 0, t0 = aw_now_ns();
    for (int g = 0; g < games; g++) {
        aw_game_opts go;
        memset(&go, 0, sizeof go);
        go.settings = &set;
        go.seed = (uint64_t)g + 1;
        if (k == LUA_SEATS)
            aw_talkhooks_game(&go);
        aw_game_result res;
        if (aw_game_play(&go, seats, &res, &err) < 0) {
            fprintf(stderr, "%s\n", err.msg);
            exit(1);
        }
        if (res.faults)
            fprintf(stderr, "warning: %d faults in game %d\n", res.faults, g);
        calls += res.calls;
    }
    double s = (aw_now_ns() - t0) / 1e9;
    double us = s * 1e6 / (double)calls;
    printf("%-10s %2d players, %-11s %5d games in %6.2f s: %8.1f games/s, %7.1f us/call (%.0f calls/game)\n",
           k == C_SEATS ? "C random" : "random.lua", players, isolated ? "isolated," : "in process,", games, s,
           games / s, us, (double)calls / games);
    for (int a = 1; a <= players; a++)
        seats[a]->ops->free(seats[a]);
    return us;
}

static void start_cost(kind k, int n)
{
    aw_settings set;
    aw_settings_preset(&set, "aiwolf", 5, NULL);
    uint64_t seed = 1;
    aw_seat *s = new_seat(k, true, &set, &seed);
    uint64_t t0 = aw_now_ns();
    for (int i = 0; i < n; i++) {
        aw_seat_fault f;
        if (!s->ops->begin(s, 1, (uint64_t)i, &f)) {
            fprintf(stderr, "begin failed: %s\n", f.msg);
            exit(1);
        }
    }
    double ms = (aw_now_ns() - t0) / 1e6 / n;
    s->ops->free(s);
    printf("%-10s starting a child (fork, confine, load, NAME) and stopping the last: %.2f ms\n",
           k == C_SEATS ? "C random" : "random.lua", ms);
}

int main(int argc, char **argv)
{
    int games = argc > 1 ? atoi(argv[1]) : 200;
    memset(&lua_opts, 0, sizeof lua_opts);
    aw_luaseat_talks(&lua_opts);
    for (int players = 5; players <= 15; players += 10) {
        for (int k = C_SEATS; k <= LUA_SEATS; k++) {
            double in = run((kind)k, false, players, games);
            double iso = run((kind)k, true, players, games);
            printf("%-10s %2d players: isolation adds %.1f us per call (x%.1f)\n\n",
                   k == C_SEATS ? "C random" : "random.lua", players, iso - in, iso / in);
        }
    }
    start_cost(C_SEATS, 200);
    start_cost(LUA_SEATS, 200);
    return 0;
}
