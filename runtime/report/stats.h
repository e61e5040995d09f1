/* stats: the one statistics model of the reports — what `play --games`
 * summarises and what a contest's report.md, results.csv and results.json
 * say. Games go in one at a time (aw_stats_add); out come rows, one per
 * entry (an agent file) or, for play, per entry and version, with:
 *   games       distinct games the row played in
 *   seats       seats it held (several per game when entries are fewer
 *               than seats)
 *   wins        points: its seats on the winning team
 *   wr          per game, its seats' wins over its seats: the win rate's
 *               95 % interval with the game as the unit sampled (winrate.h)
 *   role_, team_, pl_games/wins
 *               seats and wins by role, by team, by table size
 *   faults      faulty calls by kind (util.h's aw_fault_kind), faulty_games
 *               the games in which one of its calls faulted, calls (when
 *               the caller counts them)
 *   times, cpu, cpu_max_us
 *               time per call as histograms (aw_time_bucket), when the
 *               caller measures them
 * and for the whole table: games, games with no winner, faulty calls, wins
 * by team, seats and wins by role; per pair of entries the games they met
 * in; per entry the roles its seats lead one to expect (given each game's
 * role table).
 *
 * Two ways to keep rows: AW_STATS_BY_ENTRY (a contest): a row per entry from
 * the start, e[i] is entry i, versions ignored; AW_STATS_BY_VERSION (play):
 * a row per entry and version when first seen, sorted by entry, versions in
 * the order they appeared (a version is cut to 19 bytes).
 *
 * Pure computation on core types; no I/O. Ownership: aw_stats_free
 * releases what aw_stats_init took. */
#ifndef AW_STATS_H
#define AW_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "settings.h"
#include "util.h"
#include "winrate.h"

#define AW_NFAULTS 6        /* aw_fault_kind: NONE (unused here) .. LOST */
#define AW_TIME_BUCKETS 128 /* bucket 0: under 1 µs; b: 2^((b-1)/4) µs and up */

typedef struct aw_stat_row {
    int entry;
    char version[20]; /* "" when the seat does not say (always, by entry) */
    long games, seats, wins;
    aw_winrate wr;
    long role_games[AW_NROLES], role_wins[AW_NROLES];   /* seats and wins */
    long team_games[3], team_wins[3];                   /* seats and wins */
    long pl_games[AW_MAX_PLAYERS + 1], pl_wins[AW_MAX_PLAYERS + 1]; /* seats and wins */
    long faults[AW_NFAULTS];
    long faulty_games;
    long calls;
    uint64_t times[AW_TIME_BUCKETS]; /* wall-clock time per call */
    uint64_t cpu[AW_TIME_BUCKETS];   /* its own CPU time per call */
    uint32_t cpu_max_us;
} aw_stat_row;

enum { AW_STATS_BY_ENTRY = 0, AW_STATS_BY_VERSION = 1 };

typedef struct aw_stats {
    int n;          /* entries */
    int mode;       /* AW_STATS_BY_ENTRY or AW_STATS_BY_VERSION */
    aw_stat_row *e; /* [nrows] */
    int nrows, caprows;
    long games, no_winner, fault_calls;
    long abandoned; /* of no_winner: ended by an error ratio; in no row's games, seats or wins */
    long team_wins[3];
    long role_games[AW_NROLES], role_wins[AW_NROLES]; /* every seat's */
    long *meet;          /* [n][n]: games two entries played together */
    double *role_expect; /* [n][AW_NROLES]: the roles each entry's seats lead one to expect */
} aw_stats;

/* One game as played. Arrays are per seat, [1..players]; the optional ones
 * may be NULL. */
typedef struct aw_stat_game {
    int players;
    const int *entry;   /* a seat of an entry outside 0..n-1 counts for the whole table only */
    const aw_role *role;
    aw_team winner;     /* AW_TEAM_NONE: no winner */
    bool abandoned;     /* too many agents failed (engine.h): counted in games and no_winner only */
    long fault_calls;   /* the game's faulty calls, for the whole table */
    const int (*faults)[AW_NFAULTS];
    const int *calls;
    const char *const *version; /* by version only; a NULL version is "" */
    const uint32_t (*times)[AW_TIME_BUCKETS];
    const uint32_t (*cpu)[AW_TIME_BUCKETS];
    const uint32_t *cpu_max_us;
    const int *role_count; /* [AW_NROLES]: the game's role table, for role_expect */
} aw_stat_game;

void aw_stats_init(aw_stats *s, int nentries, int mode);
void aw_stats_free(aw_stats *s);
void aw_stats_add(aw_stats *s, const aw_stat_game *g);
/* An entry's seats and wins over all its rows. */
void aw_stats_entry(const aw_stats *s, int entry, long *seats, long *wins);

/* The 95 % Wilson score interval of w wins in n independent results
 * (winrate.h's aw_wilson_z at the normal quantile; 0..1 when n is 0). */
void aw_wilson(long w, long n, double *lo, double *hi);

/* The bucket of a call that took ns. */
int aw_time_bucket(uint64_t ns);
/* The time per call at quantile q (0..1) of a histogram, in µs (0: none). */
double aw_time_quantile(const uint64_t *times, double q);

#endif
