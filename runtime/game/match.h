/* match: runs many games between the same seats and tallies them in the
 * reports' statistics model (stats.h) — wins by team, by role and by entry
 * (the agent files behind the seats) and version — with progress as it
 * goes, on worker processes (pool.h) with jobs > 1. `play --games` runs it;
 * `serve --games` tallies its games with aw_tally_add. Uses game, gamelog,
 * engine, util, stats, pool.
 *
 * Ownership: the caller owns the seats and the tally (aw_tally_free). */
#ifndef AW_MATCH_H
#define AW_MATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "game.h"
#include "stats.h"
#include "winrate.h"
#include "writers.h"

/* The tally of a match: the reports' statistics model (stats.h) with a
 * row per entry (an agent file) and version, and what a match adds. */
typedef struct aw_tally {
    aw_stats st;                   /* AW_STATS_BY_VERSION; st.games: the games counted */
    /* Head to head (aw_match_opts.mirror): per pair of mirrored games, the
     * difference between entry 0's and entry 1's win rates. */
    long pairs;
    double pair_sum, pair_sumsq;
    int output_errors;             /* games whose output could not be written */
    double secs;                   /* wall time so far */
} aw_tally;

void aw_tally_init(aw_tally *t, int nentries);
void aw_tally_free(aw_tally *t);
/* Counts one game: entry_of[a] is the entry seat a played for (1..n);
 * version_of[a] (may be NULL, or hold NULLs) the version that seat played. */
void aw_tally_add(aw_tally *t, const aw_game_result *res, int players, const int *entry_of,
                  const char *const *version_of);
/* The summary's formats (writers.h), each given an aw_report whose ctx is
 * an aw_tally_report:
 *   text  the summary people read: games and speed, wins by team, by role,
 *         and by entry and version with 95 % intervals per game (an
 *         entry's seats in one game are one result: winrate.h), win rates
 *         by role and faults by kind; the head-to-head difference when
 *         there was one
 *   json  (--summary FILE.json or json:FILE) the same for tools, one object
 *   csv   (--summary FILE.csv or csv:FILE) a header and a row per entry and
 *         version */
typedef struct aw_tally_report {
    const aw_tally *t;
    const aw_settings *set;
    uint64_t first_seed; /* the first game's seed */
} aw_tally_report;
extern const aw_report_writer aw_tally_writers[];
/* Writes t in w's format; 0, or -1 when a write failed. */
int aw_tally_write(const aw_report_writer *w, const aw_tally *t, FILE *out, const aw_settings *set,
                   uint64_t first_seed, const char *const *entry_names);
/* The "text" summary. */
void aw_tally_print(const aw_tally *t, FILE *out, const aw_settings *set, uint64_t first_seed,
                    const char *const *entry_names);

typedef struct aw_match_opts {
    aw_game_opts game;   /* for every game; seed, log and game_no are set per game */
    long games;          /* game i has seed game.seed + i */
    const int *entry_of; /* [1..players]: the entry each seat plays for */
    /* Before game gno: set up *log (aw_gamelog_init), or leave log NULL for
     * none. Returns 0, or a negative value to stop the match (having said
     * why). */
    int (*before)(void *ud, long gno, uint64_t seed, aw_gamelog **log);
    /* Agent numbers drawn per game: seat a of a game is played by
     * seats[n[a]] (and entry_of, game.deal and mirror follow it), n a
     * permutation of 1..players drawn from the game's own seed
     * (aw_match_numbers), so a game is the same whether it is played alone
     * or in a run, and both games of a mirrored pair have the same numbers.
     * false: seats[a] is agent a in every game. */
    bool draw_numbers;
    /* After it: flush and close its outputs; a negative return counts an
     * output error and the match goes on. May be NULL. */
    int (*after)(void *ud, long gno, aw_gamelog *log);
    /* Every two seconds or so. May be NULL. */
    void (*progress)(void *ud, const aw_tally *t, long games);
    void *ud;
    /* When not NULL and set (a signal handler may set it), no further game
     * starts; the one under way is played out. */
    volatile int *stop;
    /* Head to head: games come in pairs with the same seed (so the same
     * deal by seat), the second with the mirror seats and entries (each
     * seat's agent swapped), so that the two entries play each other's
     * roles and luck cancels. */
    aw_seat **mirror;
    const int *mirror_entry_of;
    /* The first fault of each entry in each version (its version() string),
     * as it happens: an author watching a run sees a new version's first
     * error at once, not only in the summary. May be NULL. */
    void (*first_fault)(void *ud, long gno, int entry, const char *version, int agent, aw_req_kind kind,
                        const aw_seat_fault *fault);
    /* Worker processes (0 or 1: none, the games are played here). Each is
     * forked with the seats as they are and plays every jobs-th game (or
     * pair); the results come back and are counted in game order, so the
     * tally is the one a single process gives. before/after run in the
     * workers (per-game files only: nothing they write may be shared);
     * progress and first_fault run here. */
    int jobs;
} aw_match_opts;

/* The numbers of a game whose seed is `seed` under draw_numbers: n[a]
 * (a = 1..players) is the caller's seat that plays agent a. One-way from
 * the seed (aw_rng_derive), so an agent learns nothing of the seed from its
 * number. */
void aw_match_numbers(uint64_t seed, int players, int n[AW_MAX_PLAYERS + 1]);

enum { AW_MATCH_DONE = 0, AW_MATCH_STOPPED = 1, AW_MATCH_FAILED = 2, AW_MATCH_INTERRUPTED = 3 };

/* Plays the games, adding each to t (initialised by the caller). Returns
 * AW_MATCH_DONE; AW_MATCH_STOPPED when `before` stopped it; AW_MATCH_FAILED
 * when a game could not start (err says why); AW_MATCH_INTERRUPTED when
 * *stop was set. */
int aw_match_run(const aw_match_opts *o, aw_seat **seats, aw_tally *t, aw_error *err);

#endif
