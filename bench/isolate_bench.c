/* isolate_bench: what isolation costs. Plays the same seeded games with the
 * agents in process and in confined child seats (childseat.h) — a child
 * forked per game, and children kept across games (persistent, as
 * `aiwolf play --isolate` and the contest workers keep them), and kept
 * children that wait for the answer to every notification (the protocol
 * before notifications went with the next request) — and reports
 * games per second and the mean time per seat call (every request,
 * notifications included), for trivial C players (the pure cost of the
 * framing, the socket round trip and the fork) and for agents/random.lua
 * (what a contest pays). Then the round trip alone: one child, the same
 * VOTE request (a fifteen-player view, no talk) over and over, each timed,
 * median and 90th percentile (C player; random.lua), and the same in
 * process, and to fifteen children in turn (as in a game: each request
 * goes to a process that has not run for a while). Also the cost of
 * starting a child (fork, confinement, agent load, NAME) on its own.
 * usage: isolate_bench [GAMES [ROUNDTRIPS]]   (default 200 and 20000; run
 * from the project root). GAMES 0: the round trips only. */
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
typedef enum { IN_PROCESS, FORK_PER_GAME, PERSISTENT, PERSISTENT_WAITING } where;
static const char *const where_name[] = {"in process,", "fork/game,", "persistent,", "waiting,"};

static aw_luaseat_opts lua_opts;
/* random.lua in a child: talks parsed only when read, as `aiwolf play
 * --isolate` and the contest workers run them (aw_luaseat_talks_deferred). */
static aw_luaseat_opts lua_child_opts;
static aw_talk_hooks lua_child_talk;

static aw_seat *make_c(void *ud, FILE *out, aw_error *err)
{
    (void)out;
    (void)err;
    return aw_cseat_random(*(uint64_t *)ud);
}

static aw_seat *make_lua(void *ud, FILE *out, aw_error *err)
{
    aw_luaseat_opts lo = lua_child_opts;
    lo.output = out;
    return aw_luaseat_new(ud, &lo, err);
}

static aw_seat *new_seat(kind k, where w, const aw_settings *set, uint64_t *seed)
{
    aw_error err;
    aw_seat *s;
    if (w == IN_PROCESS) {
        s = k == C_SEATS ? aw_cseat_random(*seed) : aw_luaseat_new("agents/random.lua", &lua_opts, &err);
    } else {
        aw_childseat_opts co;
        memset(&co, 0, sizeof co);
        co.limits.budget_ms = set->time_limit_ms;
        co.talk = k == C_SEATS ? aw_talkhooks() : lua_child_talk;
        co.persistent = w == PERSISTENT || w == PERSISTENT_WAITING;
        /* (each notification alone, waited for: the protocol before
         * notifications went with the next request) */
        co.wait_notifications = w == PERSISTENT_WAITING;
        if (k == LUA_SEATS)
            co.child_prepare = aw_luaseat_child_prepare;
        s = aw_childseat_new(k == C_SEATS ? make_c : make_lua, k == C_SEATS ? (void *)seed : "agents/random.lua",
                             &co, &err);
    }
    if (!s) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    return s;
}

static double run(kind k, where w, int players, int games)
{
    aw_settings set;
    aw_error err;
    aw_settings_preset(&set, "aiwolf", players, &err);
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    uint64_t seeds[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= players; a++) {
        seeds[a] = (uint64_t)a;
        seats[a] = new_seat(k, w, &set, &seeds[a]);
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
           k == C_SEATS ? "C random" : "random.lua", players, where_name[w], games, s, games / s, us,
           (double)calls / games);
    for (int a = 1; a <= players; a++)
        seats[a]->ops->free(seats[a]);
    return us;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The round trip of one request, n times: nseats seats (persistent
 * children, or in process), each given INITIALIZE, then the same VOTE with a
 * fifteen-player view (day 1, everyone alive, no talk) to each seat in turn,
 * each timed from the request to its answer. With fifteen children in turn,
 * as in a game, each request switches to a process that has not run since
 * the last round. */
static void round_trip(kind k, where w, int n, int nseats)
{
    aw_settings set;
    aw_settings_preset(&set, "aiwolf", 15, NULL);
    uint64_t seed = 1;
    aw_seat *seats[AW_MAX_PLAYERS];
    for (int j = 0; j < nseats; j++) {
        seats[j] = new_seat(k, w, &set, &seed);
        aw_seat_fault f = {AW_FAULT_NONE, ""};
        if (!seats[j]->ops->begin(seats[j], 1, 1, &f)) {
            fprintf(stderr, "begin failed: %s\n", f.msg);
            exit(1);
        }
    }
    static const aw_talk none[1];
    aw_info info;
    memset(&info, 0, sizeof info);
    info.agent = 1;
    info.n = 15;
    info.my_role = AW_VILLAGER;
    for (int a = 1; a <= 15; a++) {
        info.role[a] = a == 1 ? AW_VILLAGER : AW_ROLE_NONE;
        info.alive[a] = true;
        info.remain_talk[a] = 10;
        info.remain_whisper[a] = -1;
    }
    info.existing_role[AW_VILLAGER] = info.existing_role[AW_WEREWOLF] = true;
    info.talks = none;
    uint64_t *t = malloc((size_t)n * sizeof *t);
    for (int i = -nseats; i < n; i++) {
        aw_seat *s = seats[(i + nseats) % nseats];
        aw_seat_fault f = {AW_FAULT_NONE, ""};
        aw_req_kind rk = i < 0 ? AW_REQ_INITIALIZE : AW_REQ_VOTE;
        info.day = i < 0 ? 0 : 1;
        aw_seat_reply r = {NULL, 0, AW_NO_AGENT};
        uint64_t t0 = aw_now_ns();
        int rc = s->ops->request(s, rk, &info, &set, &r, &f);
        if (rc == AW_SEAT_PENDING)
            rc = s->ops->wait(s, &r, &f);
        if (rc != 0) {
            fprintf(stderr, "%s: %s\n", aw_req_name(rk), f.msg);
            exit(1);
        }
        if (i >= 0)
            t[i] = aw_now_ns() - t0;
    }
    qsort(t, (size_t)n, sizeof *t, cmp_u64);
    char wname[32];
    if (nseats > 1)
        snprintf(wname, sizeof wname, "%d in turn,", nseats);
    else
        snprintf(wname, sizeof wname, "%s", where_name[w]);
    printf("%-10s round trip of a VOTE, %-11s %6d requests: median %6.2f us, p90 %6.2f us\n",
           k == C_SEATS ? "C random" : "random.lua", wname, n, t[n / 2] / 1e3, t[n * 9 / 10] / 1e3);
    free(t);
    for (int j = 0; j < nseats; j++)
        seats[j]->ops->free(seats[j]);
}

static void start_cost(kind k, int n)
{
    aw_settings set;
    aw_settings_preset(&set, "aiwolf", 5, NULL);
    uint64_t seed = 1;
    aw_seat *s = new_seat(k, FORK_PER_GAME, &set, &seed);
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
    int trips = argc > 2 ? atoi(argv[2]) : 20000;
    if (games < 0 || trips < 1) {
        fprintf(stderr, "usage: isolate_bench [GAMES [ROUNDTRIPS]]\n");
        return 2;
    }
    memset(&lua_opts, 0, sizeof lua_opts);
    aw_luaseat_talks(&lua_opts);
    memset(&lua_child_opts, 0, sizeof lua_child_opts);
    lua_child_talk = aw_luaseat_talks_deferred(&lua_child_opts);
    for (int k = C_SEATS; k <= LUA_SEATS && trips; k++) {
        round_trip((kind)k, IN_PROCESS, trips, 1);
        round_trip((kind)k, PERSISTENT, trips, 1);
        round_trip((kind)k, PERSISTENT, trips, 15);
    }
    printf("\n");
    if (!games)
        return 0;
    for (int players = 5; players <= 15; players += 10) {
        for (int k = C_SEATS; k <= LUA_SEATS; k++) {
            double in = run((kind)k, IN_PROCESS, players, games);
            double iso = run((kind)k, FORK_PER_GAME, players, games);
            double kept = run((kind)k, PERSISTENT, players, games);
            double waiting = run((kind)k, PERSISTENT_WAITING, players, games);
            printf("%-10s %2d players: isolation adds %.1f us per call (x%.1f) with a fork per game, %.1f us "
                   "(x%.1f) with children kept, %.1f us (x%.1f) with children kept that wait for every "
                   "notification\n\n",
                   k == C_SEATS ? "C random" : "random.lua", players, iso - in, iso / in, kept - in, kept / in,
                   waiting - in, waiting / in);
        }
    }
    start_cost(C_SEATS, 200);
    start_cost(LUA_SEATS, 200);
    return 0;
}
