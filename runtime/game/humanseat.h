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
 * The synchronous driver waits on a condition variable (wait); a driver
 * on an event loop polls (aw_human_take) when the seat's notify callback
 * says an answer came, or when the deadline passes.
 *
 * Each seat has a secret token of 128 random bits from the system
 * (getrandom), never from a game's seed: only a caller with the token reads
 * the seat's view or answers for it.
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
 * thread; json is borrowed for the call. */
typedef void aw_human_publish_fn(void *ud, const char *json, size_t len);
/* Says that an answer is there for aw_human_take. Called in the thread
 * that called aw_human_answer, with no lock held. */
typedef void aw_human_notify_fn(void *ud, aw_seat *seat);

typedef struct aw_human_opts {
    const char *name;        /* the agent's name (copied; NULL: "human") */
    uint64_t timeout_ms;     /* per request that needs an answer (0: 120 s) */
    aw_human_publish_fn *publish;
    aw_human_notify_fn *notify; /* may be NULL */
    void *ud;
} aw_human_opts;

/* NULL with err filled when the system gives no random bytes. */
aw_seat *aw_human_new(const aw_human_opts *o, aw_error *err);

/* The seat's token (AW_HUMAN_TOKEN_LEN hex digits), for its URL. */
const char *aw_human_token(const aw_seat *s);
/* Whether token[0..len) is the seat's (in constant time). */
bool aw_human_token_ok(const aw_seat *s, const char *token, size_t len);

/* The latest view published (with the time left now), for a page that
 * joins late: 0 with the object appended to out, or -AW_EINVAL (wrong
 * token: nothing appended), -AW_ESTATE (no view yet). */
int aw_human_view(aw_seat *s, const char *token, size_t token_len, aw_buf *out, aw_error *err);

/* The person's answer to request number `seq` (the "seq" of its view): a
 * text (TALK, WHISPER) or a target (the others). 0 when it is taken (the
 * game goes on with it), or negative with err filled: a wrong token, no
 * such request waiting (answered, timed out, or another one), the wrong
 * kind of answer, a target that is no agent of the game, or a text the
 * protocol refuses (the parser's message, e.g. "at byte 5: ..."). */
int aw_human_answer(aw_seat *s, const char *token, size_t token_len, uint64_t seq, const char *text, size_t len,
                    int target, aw_error *err);

/* For drivers on an event loop: the pending request's answer as request()
 * would have given it (0 or a time-out fault), or AW_SEAT_PENDING while
 * the person may still answer. */
int aw_human_take(aw_seat *s, aw_seat_reply *reply, aw_seat_fault *fault);
/* When the pending request times out (aw_now_ns clock), 0 when none. */
uint64_t aw_human_deadline(aw_seat *s);

/* The view of agent info->agent for request kind as the JSON object the
 * seat publishes (appended to out): seq numbers the request, left_ms is
 * the time left to answer (0 for notifications). */
void aw_human_view_json(const aw_info *info, aw_req_kind kind, const aw_settings *set, uint64_t seq,
                        uint64_t left_ms, aw_buf *out);

#endif
