/* match: runs many games between the same seats and tallies them — wins by
 * team, by role and by entry (the agent files behind the seats) — with
 * progress as it goes. `play --games` uses it; the contest runner and
 * `serve --games` are meant to. Uses game, gamelog, engine, util.
 *
 * Ownership: the caller owns the seats and the tally (aw_tally_free). */
#ifndef AW_MATCH_H
#define AW_MATCH_H

#include <stdint.h>
#include <stdio.h>

#include "game.h"

typedef struct aw_tally {
    long played, draws, faults;
    int team_wins[3];
    int role_games[AW_NROLES], role_wins[AW_NROLES];
    int nentries;
    int *entry_games, *entry_wins; /* [nentries] */
    int output_errors;             /* games whose output could not be written */
    double secs;                   /* wall time so far */
} aw_tally;

void aw_tally_init(aw_tally *t, int nentries);
void aw_tally_free(aw_tally *t);
/* Counts one game: entry_of[a] is the entry seat a played for (1..n). */
void aw_tally_add(aw_tally *t, const aw_game_result *res, int players, const int *entry_of);
/* The summary people read: games and speed, wins by team, by role, by
 * entry, faults. first_seed is the first game's seed. */
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
    /* After it: flush and close its outputs; a negative return counts an
     * output error and the match goes on. May be NULL. */
    int (*after)(void *ud, long gno, aw_gamelog *log);
    /* Every two seconds or so. May be NULL. */
    void (*progress)(void *ud, const aw_tally *t, long games);
    void *ud;
    /* When not NULL and set (a signal handler may set it), no further game
     * starts; the one under way is played out. */
    volatile int *stop;
} aw_match_opts;

enum { AW_MATCH_DONE = 0, AW_MATCH_STOPPED = 1, AW_MATCH_FAILED = 2, AW_MATCH_INTERRUPTED = 3 };

/* Plays the games, adding each to t (initialised by the caller). Returns
 * AW_MATCH_DONE; AW_MATCH_STOPPED when `before` stopped it; AW_MATCH_FAILED
 * when a game could not start (err says why); AW_MATCH_INTERRUPTED when
 * *stop was set. */
int aw_match_run(const aw_match_opts *o, aw_seat **seats, aw_tally *t, aw_error *err);

#endif
