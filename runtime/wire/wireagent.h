/* wireagent: the client side of the official wire format with no I/O — an
 * agent (any seat) that is handed one packet line at a time and gives back
 * the reply line, if the request has one. It merges talk/whisper deltas into
 * the last gameInfo, answers NAME and ROLE, never answers the requests that
 * expect no answer, and writes targets as {"agentIdx":N}. The TCP client
 * (`aiwolf connect`, netclient.c) runs it over its socket. Uses wire, seat,
 * settings, util.
 *
 * Ownership: the inner seat is borrowed. aw_wire_agent_free releases what
 * the agent holds. */
#ifndef AW_WIREAGENT_H
#define AW_WIREAGENT_H

#include <stdbool.h>

#include "seat.h"
#include "wire.h"

typedef struct aw_wire_agent {
    aw_seat *inner;
    aw_settings base;        /* assumed for what the wire does not carry */
    aw_settings set;         /* base with the last gameSetting applied */
    const char *role;        /* the answer to ROLE ("none" when NULL) */
    const char *name_override; /* the answer to NAME instead of the agent's own (NULL: its own) */
    aw_talk_hooks talk;      /* how talks get their parsed form (may be none) */
    /* Whether each INITIALIZE starts the inner seat afresh (begin, with the
     * packet's agent and randomSeed), as over TCP where one connection plays
     * game after game. When false, the caller calls aw_wire_agent_begin once. */
    bool begin_at_initialize;
    /* state */
    aw_wire_client cl;
    const char *name;   /* from the inner seat's begin; borrowed from it */
    aw_seat_fault begin_fault;
    bool begun;
} aw_wire_agent;

/* Sets up wa around inner (borrowed); base may be NULL (the aiwolf preset). */
void aw_wire_agent_init(aw_wire_agent *wa, aw_seat *inner, const aw_settings *base);
void aw_wire_agent_free(aw_wire_agent *wa);

/* Starts the inner seat for a game (seat.h's begin). */
void aw_wire_agent_begin(aw_wire_agent *wa, int agent, uint64_t agent_seed);

/* Takes one packet line (without its newline): decodes it and merges it
 * into the agent's gameInfo. Returns the request (aw_req_kind or
 * AW_WIRE_REQ_NAME/ROLE), or a negative value with err filled when the line
 * is not a packet that can be applied (the peer is broken). */
int aw_wire_agent_take(aw_wire_agent *wa, const char *line, size_t len, aw_error *err);

/* Answers the request just taken: asks the inner seat (or answers NAME and
 * ROLE itself). When the request has a reply, *has_reply is set and the
 * reply line (without newline) is appended to out. *fault is the inner
 * seat's fault for this request (AW_FAULT_NONE if none). */
void aw_wire_agent_answer(aw_wire_agent *wa, int request, aw_buf *out, bool *has_reply, aw_seat_fault *fault);

#endif
