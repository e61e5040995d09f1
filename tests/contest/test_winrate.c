/* test_winrate: the contest's win-rate interval (winrate.h) by simulation.
 * Many small contests of identical agents under different names: each game
 * seats every player, an entry holds several seats of it (as many as the
 * schedule deals it: fewer entries than seats), roles are dealt at random
 * and a seat wins when its team wins, so the seats of one entry in one game
 * are strongly correlated (same team: they win together; opposite teams:
 * one of them loses). Every entry's true win rate is known exactly (the
 * share of seats on each team times that team's chance to win), so we can
 * count how often the 95 % interval covers it. The interval per game
 * (winrate.h) must cover it in about 95 % of cases (0.93 to 0.975), and
 * the per-seat Wilson interval the contest used before (every seat an
 * independent result) must fall short in the same contests where an
 * entry's seats are mostly on one team (below 0.925, and 0.03 below the
 * new one), and be too wide where they are split between two teams. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "match.h"
#include "rng.h"
#include "test.h"
#include "winrate.h"

typedef struct scenario {
    const char *what;
    int entries, players, village; /* seats on the village team; the rest are the werewolves' */
    int games;
    double q;        /* the village's chance to win */
    int old_short;   /* the per-seat interval is too narrow here (seats mostly on one team) */
} scenario;

/* A uniform double in [0, 1). */
static double unit(aw_rng *r)
{
    return (double)(aw_rng_next(r) >> 11) / 9007199254740992.0;
}

static void run(const scenario *sc, int contests, double *cover_new, double *cover_old)
{
    aw_rng rng;
    aw_rng_seed(&rng, 20261127u + (uint64_t)sc->players * 1000u + (uint64_t)sc->entries);
    double p = sc->q * sc->village / sc->players + (1 - sc->q) * (sc->players - sc->village) / sc->players;
    long hit_new = 0, hit_old = 0, n = 0;
    for (int c = 0; c < contests; c++) {
        aw_winrate wr[32];
        memset(wr, 0, sizeof wr);
        int next = 0; /* seats dealt round the entries, as the schedule's permutations do */
        for (int g = 0; g < sc->games; g++) {
            int seat_entry[32], team[32], order[32];
            for (int s = 0; s < sc->players; s++) {
                seat_entry[s] = next;
                next = (next + 1) % sc->entries;
                order[s] = s;
            }
            aw_rng_shuffle(&rng, order, sc->players); /* roles to seats at random */
            for (int s = 0; s < sc->players; s++)
                team[order[s]] = s < sc->village ? 0 : 1;
            int winner = unit(&rng) < sc->q ? 0 : 1;
            int w[32] = {0}, m[32] = {0};
            for (int s = 0; s < sc->players; s++) {
                m[seat_entry[s]]++;
                w[seat_entry[s]] += team[s] == winner;
            }
            for (int e = 0; e < sc->entries; e++)
                aw_winrate_add(&wr[e], w[e], m[e]);
        }
        for (int e = 0; e < sc->entries; e++) {
            double lo, hi;
            aw_winrate_interval(&wr[e], &lo, &hi);
            hit_new += lo <= p && p <= hi;
            aw_wilson(wr[e].wins, wr[e].seats, &lo, &hi);
            hit_old += lo <= p && p <= hi;
            n++;
        }
    }
    *cover_new = (double)hit_new / (double)n;
    *cover_old = (double)hit_old / (double)n;
}

static void test_coverage(void)
{
    static const scenario sc[] = {
        {"4 entries, 15 players (11 village, 4 werewolf team), 20 games", 4, 15, 11, 20, 0.5, 1},
        {"6 entries, 15 players, 24 games (6 x 60 seats)", 6, 15, 11, 24, 0.55, 1},
        {"3 entries, 15 players, 60 games", 3, 15, 11, 60, 0.4, 1},
        {"2 entries, 5 players (3 village, 2 werewolf team), 40 games", 2, 5, 3, 40, 0.45, 0},
    };
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        double cn, co;
        run(&sc[i], 3000, &cn, &co);
        printf("%s: per-game interval covers %.3f, per-seat Wilson %.3f\n", sc[i].what, cn, co);
        CHECK_MSG(cn >= 0.93 && cn <= 0.975, "%s: coverage %.3f", sc[i].what, cn);
        /* Seats mostly on one team: the per-seat interval is too narrow;
         * seats split between teams: too wide. */
        if (sc[i].old_short)
            CHECK_MSG(co < 0.925 && co < cn - 0.03, "%s: the per-seat Wilson interval covers %.3f", sc[i].what, co);
        else
            CHECK_MSG(co > 0.975, "%s: the per-seat Wilson interval covers %.3f", sc[i].what, co);
    }
}

/* One seat per game: the interval is Wilson's on the games, with t's
 * quantile; the figures themselves. */
static void test_basics(void)
{
    aw_winrate r;
    memset(&r, 0, sizeof r);
    double lo, hi;
    aw_winrate_interval(&r, &lo, &hi);
    CHECK(lo == 0 && hi == 1);
    for (int g = 0; g < 100; g++)
        aw_winrate_add(&r, g % 2, 1);
    CHECK_INT(r.games, 100);
    CHECK_INT(r.seats, 100);
    CHECK_INT(r.wins, 50);
    CHECK(fabs(aw_winrate_rate(&r) - 0.5) < 1e-12);
    CHECK(fabs(aw_winrate_neff(&r) - 99) < 1e-9); /* n - 1: the variance's n / (n - 1) */
    aw_winrate_interval(&r, &lo, &hi);
    double wlo, whi;
    aw_wilson_z(0.5, 99, aw_t95(99), &wlo, &whi);
    CHECK(fabs(lo - wlo) < 1e-12 && fabs(hi - whi) < 1e-12);
    CHECK(fabs(aw_t95(99) - 1.9842) < 1e-3);
    CHECK(fabs(aw_t95(20) - 2.0860) < 1e-3);
    CHECK(fabs(aw_t95(5) - 2.5706) < 1e-4);
    /* Two seats per game that always win or lose together: the same
     * information as one seat per game. */
    aw_winrate two;
    memset(&two, 0, sizeof two);
    for (int g = 0; g < 100; g++)
        aw_winrate_add(&two, 2 * (g % 2), 2);
    CHECK(fabs(aw_winrate_neff(&two) - 99) < 1e-9);
    double tlo, thi;
    aw_winrate_interval(&two, &tlo, &thi);
    CHECK(fabs(tlo - lo) < 1e-12 && fabs(thi - hi) < 1e-12);
    /* All won: as many results as games. */
    aw_winrate all;
    memset(&all, 0, sizeof all);
    for (int g = 0; g < 10; g++)
        aw_winrate_add(&all, 3, 3);
    CHECK(fabs(aw_winrate_neff(&all) - 10) < 1e-9);
    aw_winrate_interval(&all, &lo, &hi);
    CHECK(hi == 1 && lo > 0.5 && lo < 0.8);
    /* Merging is adding the games. */
    aw_winrate a = two;
    aw_winrate_merge(&a, &all);
    CHECK_INT(a.games, 110);
    CHECK_INT(a.seats, 230);
}

/* The mean of bounded results (play --vs's head to head): Student's t over
 * the results, cut to the bounds; none from one result or from results that
 * all agree (never a 0-wide interval). */
static void test_mean(void)
{
    double m, lo, hi;
    CHECK_INT(aw_mean_interval(0, 0, 0, -1, 1, &m, &lo, &hi), AW_MEAN_FEW);
    CHECK_INT(aw_mean_interval(1, 0.5, 0.25, -1, 1, &m, &lo, &hi), AW_MEAN_FEW);
    CHECK(m == 0.5 && lo == 0.5 && hi == 0.5);
    CHECK_INT(aw_mean_interval(2, 0, 0, -1, 1, &m, &lo, &hi), AW_MEAN_SAME);
    /* 30 results of 1/3: rounding must not make a spread */
    double third = 1.0 / 3, sum = 0, sq = 0;
    for (int i = 0; i < 30; i++)
        sum += third, sq += third * third;
    CHECK_INT(aw_mean_interval(30, sum, sq, -1, 1, &m, &lo, &hi), AW_MEAN_SAME);
    /* 0.2 and 0.4 ten times each: mean 0.3, variance 0.2 / 19, t at 19 df */
    sum = sq = 0;
    for (int i = 0; i < 20; i++) {
        double d = i % 2 ? 0.4 : 0.2;
        sum += d, sq += d * d;
    }
    CHECK_INT(aw_mean_interval(20, sum, sq, -1, 1, &m, &lo, &hi), AW_MEAN_INTERVAL);
    double half = aw_t95(19) * sqrt(0.2 / 19 / 20);
    CHECK_MSG(fabs(m - 0.3) < 1e-12 && fabs(hi - lo - 2 * half) < 1e-9, "%f %f %f (half %f)", m, lo, hi, half);
    /* two results far apart: t at 1 df, cut to the bounds */
    CHECK_INT(aw_mean_interval(2, 0, 2, -1, 1, &m, &lo, &hi), AW_MEAN_INTERVAL);
    CHECK(lo == -1 && hi == 1);
}

int main(void)
{
    test_basics();
    test_mean();
    test_coverage();
    return test_done();
}
