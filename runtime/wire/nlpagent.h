/* nlpagent: the client side of the NLP division with no I/O — an agent
 * (any seat, in practice a sandboxed Lua agent) that is handed one server
 * message at a time (nlp.h) and gives back the answer, if the request has
 * one. It numbers the agents 1..N by their names (sorted, as the server's
 * status_map is), builds the seat's view (aw_info, with aw_info_nlp: the
 * names, the profile, what remains of the day's talk) from the packets and
 * the histories, which carry only what is new, and turns the seat's
 * answers into what the server takes: a target number becomes a name; a
 * talk that is a protocol sentence (COMINGOUT Agent[03] SEER) is rendered
 * into English or Japanese with the agents' names; Skip and Over stay;
 * free text passes; every talk is made one line of valid UTF-8 and cut to
 * the length rule (the renderer and the rule are core's, nlprules.h, the
 * ones `serve --nlp` uses). It speaks both protocols the official server
 * has: turn-based (a TALK request, an answer) and, when the server sends
 * TALK_PHASE_START (aiwolf-nlp-common 0.7.0's group chat), talks sent
 * unasked, one at a time: the first at the phase's start, each next once
 * the server has broadcast the last one back and another agent has spoken
 * since (or every other has finished), so the seat answers talk() as in
 * the turn-based game and hears the others between its talks. The
 * WebSocket client (`aiwolf connect --nlp`) runs it. Uses nlp, nlprules, seat, settings, util.
 *
 * Ownership: the inner seat is borrowed; aw_nlp_agent_free releases the
 * rest. */
#ifndef AW_NLPAGENT_H
#define AW_NLPAGENT_H

#include <stdbool.h>

#include "nlp.h"
#include "seat.h"

typedef struct aw_nlp_agent {
    aw_seat *inner;
    const char *team;  /* the answer to NAME (NULL: the agent's own getName) */
    const char *lang;  /* "en", "ja", or NULL: "ja" when the agents' names are not ASCII */
    aw_talk_hooks talk;  /* how talks get their parsed form (may be none) */
    /* state (private) */
    int n, me;
    char *names[AW_MAX_PLAYERS + 1];
    char *profile;
    aw_settings set;
    aw_nlp_setting nset;
    bool has_setting, begun;
    const char *begin_name;
    aw_seat_fault begin_fault;
    aw_info info;
    aw_info_nlp nlp;
    aw_talk *talks, *whispers;
    int ntalks, nwhispers, cap_talks, cap_whispers;
    aw_vote *votes, *attack_votes;
    int nvotes, nattack_votes;
    aw_nlp_req request;
    int alive_day;                        /* the day alive_then is of (-1: none) */
    bool alive_then[AW_MAX_PLAYERS + 1];  /* who was alive when that day began */
    long unknown_names; /* names in packets that are not in the game (answered as no one) */
    /* the group chat (0.7.0: TALK_PHASE_START, broadcasts, _END): see
     * chat_update in nlpagent.c */
    int chat;                              /* AW_NLP_TALK or AW_NLP_WHISPER during a phase, else 0 */
    bool chat_waiting, chat_heard, chat_done, chat_speak;
    bool chat_in[AW_MAX_PLAYERS + 1];      /* agents of the phase still talking */
    int chat_said[AW_MAX_PLAYERS + 1];     /* talks of each in this phase */
} aw_nlp_agent;

void aw_nlp_agent_init(aw_nlp_agent *a, aw_seat *inner);
void aw_nlp_agent_free(aw_nlp_agent *a);

/* Takes one message: decodes it and merges it into the view. Returns the
 * request (aw_nlp_req), or a negative value with err filled when the
 * message is not a packet that can be applied (the server is broken). */
int aw_nlp_agent_take(aw_nlp_agent *a, const char *msg, size_t len, aw_error *err);

/* Answers the request just taken: asks the inner seat (or answers NAME).
 * When the request wants an answer, *has_reply is set and the answer is
 * appended to out (one line of valid UTF-8; "" when the seat gave none).
 * *fault is the inner seat's fault (AW_FAULT_NONE if none). */
void aw_nlp_agent_answer(aw_nlp_agent *a, aw_buf *out, bool *has_reply, aw_seat_fault *fault);

/* The index (1..n) of the agent named name, or 0. */
int aw_nlp_agent_index(const aw_nlp_agent *a, const char *name);

/* Renders talk text for the server: a protocol sentence described in lang
 * with names[1..n] for Agent[NN] (Skip and Over as they are), other text as
 * it is; control bytes become spaces, invalid UTF-8 goes; then cut to the
 * length rule of ts with remain_length (-1: not given) at a character
 * boundary, the part after the first @mention of another agent cut to the
 * mention length, as the server counts. Appends to out. */
void aw_nlp_render_talk(const char *text, size_t len, int speaker, const char *const *names, int n,
                        const char *lang, const aw_nlp_talk_setting *ts, int remain_length, aw_buf *out);

#endif
