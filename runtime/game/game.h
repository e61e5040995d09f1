/* game: plays one game between seats. The step API (aw_game_start, _next,
 * _ask, _answer, _end) is the one place that applies a seat's answer — its
 * timing, its fault in the log, the rules' substitute when there is no valid
 * answer — whoever drives: the synchronous driver below (aw_game_play), the
 * log replay, and drivers on an event loop, whose seats answer later
 * (AW_SEAT_PENDING, seat.h). Uses engine, view, seat, gamelog, rng, util. */
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
    bool abandoned; /* ended with no winner: too many agents failed (engine.h) */
    int failed;     /* agents counted as failed (aw_engine_fail) */
    uint64_t calls;
    int seat_faults[AW_MAX_PLAYERS + 1][AW_FAULT_LOST + 1]; /* per seat, by kind */
} aw_game_result;

/* Plays one game. seats[1..n] are borrowed. deal may be NULL. talk holds
 * the talk hooks for the engine (talkhooks.h; may be NULL), called with validate_ud. log may
 * be NULL. Returns 0, or a negative code when the game could not start. */
typedef struct aw_game_opts {
    const aw_settings *settings;
    uint64_t seed;
    const aw_role *deal;
    aw_talk_hooks talk;
    void *validate_ud;
    /* Optional: makes the game's random choices (replaying a recorded game). */
    int (*choose)(void *ud, aw_choice kind, int agent, const int *options, int n);
    void *choose_ud;
    aw_gamelog *log;
    int game_no;
    /* Optional: sees every event after the log (the replay compares them
     * with a recorded log). */
    void (*event)(void *ud, const aw_event *ev);
    void *event_ud;
    /* Names from the seats are made safe for the CSV log (one line, no
     * commas, at most 64 bytes) unless this is set (the replay: its names
     * come from a log already). */
    bool verbatim_names;
    /* Optional: sees every seat call as it is applied — the seat, the
     * request (AW_REQ_NONE for begin), how long it took from ask to answer
     * (0 for begin) and its fault (NULL when it answered): per-seat
     * statistics for the contest and the play summary. */
    void (*call)(void *ud, int agent, aw_req_kind kind, uint64_t ns, const aw_seat_fault *fault);
    void *call_ud;
    /* Optional: sees the outcome of every notification a seat took at once
     * and delivered later (seat.h's aw_seat_late: a child seat), when the
     * seat reports it — before its next answer is applied. Its call went
     * to `call` already, without a fault and without the agent's CPU time;
     * the fault (also counted in the result and logged, a "late" call line)
     * and that CPU time come here. */
    void (*late)(void *ud, int agent, const aw_seat_late *late);
    void *late_ud;
} aw_game_opts;

/* The synchronous driver: plays a whole game in this thread. Each batch's
 * requests go out first (so seats that answer later work in parallel), then
 * the answers are applied in seat order. */
int aw_game_play(const aw_game_opts *opts, aw_seat **seats, aw_game_result *res, aw_error *err);

/* A game in progress, for drivers of their own. */
typedef struct aw_game aw_game;

/* Starts a game: asks every seat's name (begin) and deals the roles. opts
 * is copied; what it points to (settings, deal, log) and seats[1..n] are
 * borrowed until aw_game_end. Returns NULL with err filled when the game
 * cannot start. */
aw_game *aw_game_start(const aw_game_opts *opts, aw_seat **seats, aw_error *err);
/* The engine, for hooks that look at the state. */
const aw_engine *aw_game_engine(const aw_game *gm);
/* The next batch of requests: 0 with *req filled, 1 when the game is over,
 * -AW_ESTATE while a seat of the current batch has not answered yet. */
int aw_game_next(aw_game *gm, aw_request *req);
/* Sends the current batch's request to seat a (which must be in it): builds
 * the seat's view and calls its request(). Returns 0 when the seat answered
 * at once (the answer is applied), or AW_SEAT_PENDING: hand its answer to
 * aw_game_answer when it comes. */
int aw_game_ask(aw_game *gm, int a);
/* Applies seat a's answer to the current batch: rc, reply and fault as
 * seat.h's request() gives them (reply may be NULL on a fault). Times the
 * call from aw_game_ask, logs it, and feeds the engine the answer or, on a
 * fault, none (so the rules' substitute applies). A second answer from the
 * same seat in one batch is ignored. */
void aw_game_answer(aw_game *gm, int a, int rc, const aw_seat_reply *reply, const aw_seat_fault *fault);
/* Seat a has failed for good (aw_engine_fail): aw_game_answer calls it for
 * every fault of kind AW_FAULT_LOST; the replay calls it where its log
 * shows an error line. */
void aw_game_fail(aw_game *gm, int a);
/* Ends the game (played out or abandoned): fills *res when res is not
 * NULL, flushes the log, frees everything. */
void aw_game_end(aw_game *gm, aw_game_result *res);

#endif
