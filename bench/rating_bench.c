/* rating_bench: the skill rating's fit on many games, and a contest folder
 * of many games for timing `aiwolf contest report` (bench/README.md).
 *   rating_bench fit [GAMES] [ENTRIES]   fits GAMES (100000) simulated
 *       15-player games between ENTRIES (30) entries of known skill and
 *       prints the time of the fit (and how well it recovered the skills)
 *   rating_bench write DIR [GAMES] [ENTRIES]   writes DIR/contest.cfg and
 *       DIR/games.tsv of GAMES (1000000) simulated games, as a finished
 *       seed2015 contest would, for `time aiwolf contest report DIR`
 *   rating_bench rounds DIR [GAMES] [ENTRIES] [ROUNDS]   the same, of an
 *       --until-separated contest: GAMES (20000) games, then ROUNDS (30)
 *       rounds drawn by the contest's rule (entries this close never
 *       separate, so the cap stops them), for timing what `contest report`
 *       spends on drawing the rounds again */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rating.h"
#include "results.h"
#include "rng.h"
#include "schedule.h"
#include "settings.h"
#include "sim_contest.h"

static double skill_of(int e, int n)
{
    return n > 1 ? 0.6 * ((double)e / (n - 1) - 0.5) : 0;
}

/* The schedule a seed2015 contest of n entries draws for `games` games. */
static void build(aw_schedule *s, int n, long games, uint64_t seed)
{
    aw_error err;
    if (sim_schedule(s, n, games * 15 / n, 0, seed, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
}

static aw_team play(const aw_sched_unit *u, int n, aw_rng *r)
{
    double eta = -0.2;
    for (int a = 1; a <= u->players; a++) {
        aw_team t = aw_role_team(u->games[0].role[a]);
        eta += (t == AW_TEAM_VILLAGER ? 1 : t == AW_TEAM_WEREWOLF ? -1 : 0) * skill_of(u->entry[a], n);
    }
    return sim_unif(r) < 1 / (1 + exp(-eta)) ? AW_TEAM_VILLAGER : AW_TEAM_WEREWOLF;
}

/* The process's CPU time: on a loaded machine the wall clock says more
 * about the others. */
static double cpu_secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fit(long games, int n)
{
    aw_schedule s;
    build(&s, n, games, 1);
    aw_rng r;
    aw_rng_seed(&r, 2);
    aw_rating_data *d = aw_rating_data_new(n);
    for (int u = 0; u < s.nunits; u++)
        aw_rating_data_add(d, s.units[u].players, s.units[u].entry, s.units[u].games[0].role, play(&s.units[u], n, &r),
                           s.units[u].games[0].seed, s.units[u].first);
    aw_rating fitr;
    aw_error err;
    uint64_t t0 = aw_now_ns();
    double c0 = cpu_secs();
    if (aw_rating_fit(d, NULL, &fitr, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    double secs = (double)(aw_now_ns() - t0) / 1e9, cpu = cpu_secs() - c0;
    double worst = 0, mean = 0;
    for (int e = 0; e < n; e++)
        mean += skill_of(e, n) / n;
    for (int e = 0; e < n; e++)
        worst = fmax(worst, fabs(fitr.skill[e] - (skill_of(e, n) - mean)) / fitr.se[e]);
    printf("fit: %ld games, %d entries: %.3f s (%.3f s of CPU; %d Newton steps, converged %s); largest error %.2f standard errors, "
           "ranking SE %.4f\n",
           aw_rating_data_games(d), n, secs, cpu, fitr.iterations, fitr.converged ? "yes" : "no", worst, fitr.se_diff);
    aw_rating_free(&fitr);
    aw_rating_data_free(d);
    aw_schedule_free(&s);
    return 0;
}

/* Appends the lines of units [from, s->nunits) of s to f, played by
 * entries of known skill. */
static void write_units(FILE *f, const aw_schedule *s, int from, int n, aw_rng *r, aw_game_record *rec, aw_buf *b,
                        aw_rating_data *d)
{
    for (int u = from; u < s->nunits; u++) {
        const aw_sched_unit *un = &s->units[u];
        memset(rec, 0, sizeof *rec);
        rec->index = un->first;
        rec->unit = u;
        rec->seed = un->games[0].seed;
        rec->players = un->players;
        for (int a = 1; a <= un->players; a++) {
            rec->entry[a] = un->entry[a];
            rec->role[a] = un->games[0].role[a];
            rec->calls[a] = 90 + (int)(aw_rng_next(r) % 40);
            rec->times[a][20 + aw_rng_next(r) % 4] = 50;
            rec->times[a][24 + aw_rng_next(r) % 4] = 30;
            rec->times[a][30] = 10;
        }
        rec->winner = play(un, n, r);
        rec->days = 3 + (int)(aw_rng_next(r) % 5);
        snprintf(rec->log, sizeof rec->log, "logs/%ld.log.gz", rec->index);
        aw_buf_clear(b);
        aw_record_format(rec, b);
        fwrite(b->data, 1, b->len, f);
        aw_rating_data_add(d, rec->players, rec->entry, rec->role, rec->winner, rec->seed, rec->index);
    }
}

static int write_dir(const char *dir, long games, int n, int rounds)
{
    mkdir(dir, 0777);
    char path[4096];
    aw_schedule s;
    build(&s, n, games, 1);
    snprintf(path, sizeof path, "%s/games.tsv", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    aw_rng r;
    aw_rng_seed(&r, 2);
    aw_game_record *rec = calloc(1, sizeof *rec);
    aw_buf b;
    aw_buf_init(&b);
    aw_rating_data *d = aw_rating_data_new(n);
    write_units(f, &s, 0, n, &r, rec, &b, d);
    /* --until-separated, by the rule of cmd_contest.c's next_round (every
     * entry is ranked here): ten games for every entry of a pair not
     * separated at 95 %, at least ten. */
    bool *favour = calloc((size_t)n, sizeof *favour);
    int played = 0;
    for (; played < rounds; played++) {
        aw_rating fitr;
        aw_error err;
        memset(favour, 0, (size_t)n * sizeof *favour);
        int u = aw_rating_fit(d, NULL, &fitr, &err) == 0 ? aw_rating_unresolved(&fitr, 0.95, favour) : 0;
        aw_rating_free(&fitr);
        if (u <= 0)
            break;
        int nf = 0;
        for (int e = 0; e < n; e++)
            nf += favour[e];
        long want = (10L * nf + 14) / 15;
        int from = s.nunits;
        aw_schedule_extend(&s, favour, want < 10 ? 10 : want, played);
        write_units(f, &s, from, n, &r, rec, &b, d);
    }
    free(favour);
    aw_rating_data_free(d);
    fclose(f);
    snprintf(path, sizeof path, "%s/contest.cfg", dir);
    f = fopen(path, "w");
    if (!f)
        return 1;
    fprintf(f,
            "aiwolf-contest\t1\nformat\tseed2015\nplayers\t15\ngames-per-entry\t%ld\nsets\t0\nset-games\t0\nseed\t1\n"
            "budget\t100\nmemory\t64\npreset\tseed2015\nshard\t1/1\n",
            games * 15 / n);
    if (rounds > 0) /* the cap: the games played */
        fprintf(f, "until-separated\t%ld\n", s.ngames);
    for (int e = 0; e < n; e++)
        fprintf(f, "entry\t%016x\tentry%d\tentries/entry%d\n", e, e, e);
    fclose(f);
    printf("wrote %s: %ld games between %d entries (%d rounds)\n", dir, s.ngames, n, played);
    aw_buf_free(&b);
    free(rec);
    aw_schedule_free(&s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "fit") == 0)
        return fit(argc > 2 ? atol(argv[2]) : 100000, argc > 3 ? atoi(argv[3]) : 30);
    if (argc >= 3 && strcmp(argv[1], "write") == 0)
        return write_dir(argv[2], argc > 3 ? atol(argv[3]) : 1000000, argc > 4 ? atoi(argv[4]) : 30, 0);
    if (argc >= 3 && strcmp(argv[1], "rounds") == 0)
        return write_dir(argv[2], argc > 3 ? atol(argv[3]) : 20000, argc > 4 ? atoi(argv[4]) : 30,
                         argc > 5 ? atoi(argv[5]) : 30);
    fprintf(stderr, "usage: rating_bench fit [GAMES] [ENTRIES] | rating_bench write DIR [GAMES] [ENTRIES] | rating_bench rounds DIR "
                    "[GAMES] [ENTRIES] [ROUNDS]\n");
    return 2;
}
