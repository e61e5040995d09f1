/* schedule: which entries play which games, in which seats and roles — all
 * of a contest drawn from its master seed before a game is played, so that
 * the same seed gives the same contest on any number of workers or
 * machines.
 *
 * The work comes in units a worker plays on the same agent processes: a
 * unit is one game in the seed2015 format (fresh instances every game),
 * a set of games with the same instances and seats in the regulation
 * format.
 *
 * Fairness by construction: seats are cut from a stream of random
 * permutations of all entries (each entry gets a seat once per permutation,
 * so seat counts differ by at most one); within a unit each role goes to
 * the seat whose entry is furthest below its expected share of that role so
 * far (ties broken at random), so every entry plays every role about
 * equally often; seat numbers are shuffled. Uses core (rng, settings).
 *
 * Ownership: aw_schedule_build fills a schedule the caller frees with
 * aw_schedule_free. */
#ifndef AW_SCHEDULE_H
#define AW_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#include "settings.h"
#include "util.h"

typedef enum aw_contest_format { AW_FORMAT_SEED2015 = 0, AW_FORMAT_REGULATION = 1 } aw_contest_format;

typedef struct aw_sched_game {
    uint64_t seed;                  /* the game's seed */
    aw_role role[AW_MAX_PLAYERS + 1]; /* the deal, seats 1..players */
} aw_sched_game;

typedef struct aw_sched_unit {
    int players;
    int ngames;
    long first;                       /* the contest-wide index of its first game */
    int entry[AW_MAX_PLAYERS + 1];    /* the entry in each seat, 1..players (0-based entry numbers) */
    aw_sched_game *games;             /* [ngames] */
} aw_sched_unit;

typedef struct aw_schedule_opts {
    aw_contest_format format;
    int nplayers;                     /* player counts, in players[0..nplayers) */
    int players[4];
    int nentries;
    long games_per_entry;             /* seed2015: at least this many games for every entry */
    int sets;                         /* regulation: sets per player count */
    int set_games;                    /* regulation: games per set */
    uint64_t seed;                    /* the master seed */
    /* The role table for each player count (settings' role_count). */
    int role_count[AW_MAX_PLAYERS + 1][AW_NROLES];
    /* seed2015: play each deal (seed and the role in each seat) this many
     * times, as consecutive units of one game, the entries rotated through
     * the deal's seats (see aw_schedule_build). 0 or 1: plain. */
    int duplicate;
} aw_schedule_opts;

typedef struct aw_schedule {
    aw_schedule_opts opts;
    int nunits;
    long ngames;
    aw_sched_unit *units;
    int max_copies; /* the most seats one entry holds in one game */
} aw_schedule;

/* Draws the schedule. With o->duplicate = K > 1 (seed2015 only), duplicate
 * deals: ceil(U / K) deals, U the units plain games would take, each
 * played K times as consecutive units of one game with the same seed and
 * the same role in each seat. The seats are ordered by team and role; copy
 * k moves every entry k*players/K places along that order, so an entry
 * holds different roles (across teams when K >= 2) in the copies of a deal
 * and the deal's luck, of roles and of seats, cancels within it. With
 * K = players every entry holds every seat of the deal once. The copies
 * share their game seed, which tells the rating which games share luck. */
int aw_schedule_build(aw_schedule *s, const aw_schedule_opts *o, aw_error *err);

/* Games where they matter (--until-separated): appends at most `games`
 * games (whole deals of opts.duplicate copies, or single games) as units
 * of one game after the last, their seats going first to the entries with
 * favour[e] (those still in doubt), the rest drawn from the others; the
 * player counts taken in turn; roles balanced over the whole schedule.
 * Drawn from the master seed's stream for `round`, so the same results
 * give the same rounds. Returns the games added (0 when `games` is less
 * than a deal). */
long aw_schedule_extend(aw_schedule *s, const bool *favour, long games, int round);
void aw_schedule_free(aw_schedule *s);

#endif
