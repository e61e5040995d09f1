/* humanseat: a person as a seat. Each request publishes the agent's view —
 * exactly what aw_info holds for that agent and request, as one JSON object
 * (docs/viewer.md, "Playing as a human") — through a callback (the web page
 * of that seat); requests that need an answer return AW_SEAT_PENDING and
 * the answer comes later from the person (aw_human_answer, from any
 * thread): a target for VOTE, DIVINE, GUARD and ATTACK, a protocol text
 * for TALK and WHISPER, checked by the protocol parser under the game's
 * validation mode (a bad text is refused with the parser's message, and
 * the person may try again until the deadline). No answer by the deadline
 * is a time-out: the rules' substitute applies, as for any seat.
 *
 * The night turn: a seat alive after the day's vote that the night asks
 * nothing (no DIVINE, GUARD, ATTACK or WHISPER) publishes a night step
 * before it answers the next DAILY_INITIALIZE — a view with request
 * "NIGHT" and answer "confirm", of what the seat knew at its last request
 * of the day — and answers DAILY_INITIALIZE only when the person confirms
 * (aw_human_answer with no text and no agent) or the time runs out (no
 * fault). So every person's night waits on the person, whatever the role,
 * and the live stream, which holds the dawn until DAILY_INITIALIZE is
 * answered (spectate.h), comes out at a moment that says nothing of it.
 *
 * Drivers: the synchronous one (play) waits on a condition variable
 * (seat->ops->wait). One on an event loop is woken instead of polling: the
 * seat calls its ready callback (aw_human_on_ready) in the thread that
 * delivered the answer, and the driver then takes the answer in its own
 * thread (aw_human_take); for a person who never answers, the driver wakes
 * itself at the deadline that aw_human_take reports, and takes the
 * time-out.
 *
 * Each seat has a secret token of 128 random bits from the system
 * (getrandom), never from a game's seed: only a caller with the token reads
 * the seat's view or answers for it.
 *
 * Threads: one lock guards the seat. The publish and ready callbacks run
 * with it held, so they must not call into the seat; in return what
 * publish gives comes in the seat's order, also with the view given to a
 * page that joins (aw_human_view_to), and once aw_human_on_ready(s, NULL,
 * NULL) returns no ready call is under way.
 *
 * Uses seat, view, protocol, util. Ownership: aw_human_new returns a seat
 * owned by the caller (seat->ops->free), which must not be freed while
 * another thread may still call into it. */
#ifndef AW_HUMANSEAT_H
#define AW_HUMANSEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seat.h"

#define AW_HUMAN_TOKEN_LEN 32 /* hex digits */

/* Receives one JSON object (no newline) for the seat's person: a view, or
 * the end of a request ("answered", "timeout"). Called in the game's
 * thread with the seat's lock held (it must not call into the seat); json
 * is borrowed for the call. */
typedef void aw_human_publish_fn(void *ud, const char *json, size_t len);

typedef struct aw_human_opts {
    const char *name;        /* the agent's name (copied; NULL: "human") */
    uint64_t timeout_ms;     /* per request that needs an answer (0: 120 s) */
    aw_human_publish_fn *publish;
    void *ud;
} aw_human_opts;

/* NULL with err filled when the system gives no random bytes. */
aw_seat *aw_human_new(const aw_human_opts *o, aw_error *err);

/* Sets the seat's clock (ns), for its deadlines and the time left: now(ud)
 * instead of aw_now_ns() (now NULL: aw_now_ns again). A test gives a clock
 * of its own to decide which requests run out, whatever the machine's
 * load; the synchronous wait re-reads it at least every timeout_ms of real
 * time. now is called with the seat's lock held, from any thread that
 * calls into the seat. Call it before the seat is asked anything. */
typedef uint64_t aw_human_clock_fn(void *ud);
void aw_human_set_clock(aw_seat *s, aw_human_clock_fn *now, void *ud);

/* The seat's token (AW_HUMAN_TOKEN_LEN hex digits), for its URL. */
const char *aw_human_token(const aw_seat *s);
/* Whether token[0..len) is the seat's (in constant time). */
bool aw_human_token_ok(const aw_seat *s, const char *token, size_t len);

/* The latest view published (with the time left now), for a page that
 * joins late: 0 with the object appended to out, or -AW_EINVAL (wrong
 * token: nothing appended), -AW_ESTATE (no view yet). */
int aw_human_view(aw_seat *s, const char *token, size_t token_len, aw_buf *out, aw_error *err);

/* Like aw_human_view, but gives the view to fn (fn_ud, the JSON object,
 * its length) with the seat's lock held, so that it comes in order with
 * what publish gives: a page that joins as the game moves on never gets an
 * older view after a newer one. fn must not call into the seat. */
int aw_human_view_to(aw_seat *s, const char *token, size_t token_len, aw_human_publish_fn *fn, void *fn_ud,
                     aw_error *err);

/* The person's answer to request number `seq` (the "seq" of its view): a
 * text (TALK, WHISPER) or a target (the others). 0 when it is taken (the
 * game goes on with it), or negative with err filled: a wrong token, no
 * such request waiting (answered, timed out, or another one), the wrong
 * kind of answer, a target that is no agent of the game, or a text the
 * protocol refuses (the parser's message, e.g. "at byte 5: ..."). */
int aw_human_answer(aw_seat *s, const char *token, size_t token_len, uint64_t seq, const char *text, size_t len,
                    int target, aw_error *err);

/* Called (with ud) each time an answer is there for aw_human_take: in the
 * thread that gave it (aw_human_answer's caller, e.g. the web's thread),
 * with the seat's lock held, so fn must be quick and must not call into
 * the seat (a uv_async_send, a condition variable's signal). Not called
 * when a deadline passes: the driver wakes itself then. fn NULL: no more
 * calls, and none is under way once this returns. One callback at a time
 * (the latest set). */
typedef void aw_human_ready_fn(void *ud);
void aw_human_on_ready(aw_seat *s, aw_human_ready_fn *fn, void *ud);

/* For drivers on an event loop: the pending request's answer as request()
 * would have given it (0 or a time-out fault), or AW_SEAT_PENDING while
 * the person may still answer, with *deadline (when not NULL) set to the
 * time (the seat's clock: aw_now_ns unless aw_human_set_clock) after which this
 * gives the time-out. */
int aw_human_take(aw_seat *s, aw_seat_reply *reply, aw_seat_fault *fault, uint64_t *deadline);
/* When the pending request times out (the seat's clock), 0 when none. */
uint64_t aw_human_deadline(aw_seat *s);

/* Stops waiting for the person (the driver is stopping: Ctrl-C): the
 * pending request, and every one after, times out at once ("the games
 * were stopped"), so the game ends on the rules' substitutes without
 * waiting. Any thread; wakes a synchronous wait and calls the ready
 * callback. */
void aw_human_close(aw_seat *s);

/* The view of agent info->agent for request kind as the JSON object the
 * seat publishes (appended to out): seq numbers the request, left_ms is
 * the time left to answer (0 for notifications). */
void aw_human_view_json(const aw_info *info, aw_req_kind kind, const aw_settings *set, uint64_t seq,
                        uint64_t left_ms, aw_buf *out);

#endif
