/* nlp_server: the host side of the NLP division's WebSocket protocol
 * (aiwolfdial's aiwolf-nlp-server, its doc/en/protocol.md), with no I/O —
 * what `aiwolf serve --nlp` says to one remote agent and how it reads the
 * answers. A request becomes one JSON text message {request, info?,
 * setting?, talk_history?, whisper_history?} in which agents are the
 * characters' names (nlprules.h), the histories carry only the entries the
 * agent has not been sent yet (from INITIALIZE or DAILY_INITIALIZE on; a
 * talk that is a protocol sentence, a Lua seat's, rendered in the game's
 * language with the names and cut to the length rule: nlprules.h), and
 * `setting` comes with INITIALIZE and DAILY_INITIALIZE, the character's
 * `profile` with INITIALIZE. An answer is one
 * raw text message: free text for TALK and WHISPER (its line breaks
 * dropped as the official server drops them, tabs made spaces,
 * "ForceSkip" is "Skip"), a character's name (or
 * Agent[NN]) for VOTE, DIVINE, GUARD and ATTACK, the team's name for NAME.
 * A message that comes when no answer is owed is a fault (the transport
 * drops the agent, as `serve` drops a TCP agent that sends lines nobody
 * asked for); the answer to a request whose deadline passed is dropped when
 * it comes, so that it is never taken for a later answer. Uses wire's JSON
 * helpers (jansson), nlprules, view, seat, util.
 *
 * Ownership: aw_nlp_srv_free releases what aw_nlp_srv_init took; settings
 * given to aw_nlp_srv_send are borrowed until the next send or reset. */
#ifndef AW_NLP_SERVER_H
#define AW_NLP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seat.h"
#include "settings.h"
#include "view.h"
#include "wire.h"

typedef struct aw_nlp_srv {
    char game_id[32];      /* info.game_id */
    int talk_sent;         /* today's talks already sent */
    int whisper_sent;      /* today's whispers already sent */
    int awaiting;          /* the request whose answer is owed, or -1 */
    int late;              /* answers past their deadline still to come: dropped */
    bool have_reply;
    aw_buf reply;          /* the answer, normalised */
    const aw_settings *set;
    int n;
    /* profiles[a] (1..AW_MAX_PLAYERS): the text INITIALIZE's info.profile
     * carries for agent a (NULL entry: core's aw_nlp_profile; "": none);
     * NULL: core's for every agent. Borrowed. */
    const char *const *profiles;
    /* The group chat (settings' talk_duration, whisper_duration; see
     * aw_nlp_srv_send): the phase the agent is in (AW_REQ_TALK or
     * AW_REQ_WHISPER, 0: none), the day's talks and whispers broadcast to
     * it, the talks it sent that no request has taken yet (each ending
     * with a NUL), and the unasked ones past them, dropped. */
    int chat;
    int talk_cast, whisper_cast;
    aw_buf queue;
    int queued;
    long dropped;
    bool after_chat; /* a phase ended today: late talks are dropped, not answers */
    bool chat_over;  /* it said Over in this phase: its later turns are Over */
} aw_nlp_srv;

void aw_nlp_srv_init(aw_nlp_srv *c);
void aw_nlp_srv_free(aw_nlp_srv *c);
/* A new game (game_id: what info.game_id says, see aw_nlp_game_id):
 * nothing sent yet, nothing owed. */
void aw_nlp_srv_reset(aw_nlp_srv *c, const char *game_id);

/* A game id in the official server's form, a ULID (26 characters of
 * Crockford's base 32: 48 bits of milliseconds since 1970, 80 bits of
 * randomness; the official agent reads the time out of it): ms, then the
 * low 16 bits of rand_hi and the 64 of rand_lo. */
void aw_nlp_game_id(uint64_t ms, uint64_t rand_hi, uint64_t rand_lo, char out[27]);

/* Appends the message for request (an aw_req_kind, or AW_WIRE_REQ_NAME
 * with info and set NULL) to out; from then on its answer is owed when it
 * has one. Fails with a fault of kind error when the message cannot be
 * encoded.
 *
 * Under a group chat (set's talk_duration or whisper_duration > 0, the
 * official server's talk.duration of aiwolf-nlp-common 0.7.0) out may hold
 * SEVERAL messages, each after the first following a NUL byte (JSON has
 * none): a TALK (WHISPER) request becomes TALK_PHASE_START at the agent's
 * first turn of the phase, then a TALK_BROADCAST (new_talk) for each talk
 * of the day it has not been sent, and no request: the answer owed is the
 * next talk the agent sends, which may have come already
 * (aw_nlp_srv_ready). Any other request first sends the phase's talks
 * left and TALK_PHASE_END (and drops the talks still queued, as the
 * official server does at the phase's end). The engine's turns still
 * order the talks: each agent hears, before its turn, every talk said
 * before it. */
int aw_nlp_srv_send(aw_nlp_srv *c, int request, const aw_info *info, const aw_settings *set, aw_buf *out,
                    aw_seat_fault *fault);

/* A message from the agent: 1 when it is the owed answer, 0 when it was
 * dropped (the answer to a request whose deadline passed), -1 with *fault
 * (kind reply) when nothing was owed. */
int aw_nlp_srv_feed(aw_nlp_srv *c, const char *msg, size_t len, aw_seat_fault *fault);

/* Whether the owed answer is here already (a talk the agent sent in the
 * group chat before its turn): take it with aw_nlp_srv_reply. */
bool aw_nlp_srv_ready(const aw_nlp_srv *c);

/* The owed answer's deadline passed: it is dropped when it comes. */
void aw_nlp_srv_expire(aw_nlp_srv *c);

/* The answer (after feed gave 1) as the seat interface has it, for
 * request: a text borrowed from c until its next call, or a target.
 * Returns -1 with *fault (kind reply) when a target is not a character of
 * the game. Ends the wait. */
int aw_nlp_srv_reply(aw_nlp_srv *c, int request, aw_seat_reply *reply, aw_seat_fault *fault);

#endif
