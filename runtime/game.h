/* game: the synchronous driver. It plays one game between seats in this
 * thread: it takes each request from the engine, builds each asked seat's
 * view, calls the seat, times the call, feeds the answer (or, on a fault,
 * nothing, so the rules' substitute applies) back to the engine, and sends
 * events to the game log. Uses engine, view, seat, gamelog, util. */
#ifndef AW_GAME_H
#define AW_GAME_H

#include <stdint.h>

#include "engine.h"
#include "gamelog.h"
#include "seat.h"

typedef struct aw_game_result {
    aw_team winner;
    int days;     /* the day on the result line */
    int humans, wolves;
    aw_role role[AW_MAX_PLAYERS + 1];
    bool alive[AW_MAX_PLAYERS + 1];
    int faults;   /* seat calls that failed */
    uint64_t calls;
} aw_game_result;

/* Plays one game. seats[1..n] are borrowed. deal may be NULL. validate and
 * free_parsed are the utterance hooks for the engine (may be NULL). log may
 * be NULL. Returns 0, or a negative code when the game could not start. */
typedef struct aw_game_opts {
    const aw_settings *settings;
    uint64_t seed;
    const aw_role *deal;
    aw_validate_fn *validate;
    void (*free_parsed)(void *ud, void *parsed);
    void *validate_ud;
    /* Optional: makes the game's random choices (replaying a recorded game). */
    int (*choose)(void *ud, aw_choice kind, int agent, const int *options, int n);
    void *choose_ud;
    aw_gamelog *log;
    int game_no;
} aw_game_opts;

int aw_game_play(const aw_game_opts *opts, aw_seat **seats, aw_game_result *res, aw_error *err);

#endif
