/* nlp: the NLP division's packets (aiwolfdial/aiwolf-nlp-server, 2025-26),
 * with no I/O. The server sends one JSON object per WebSocket text message,
 * {request, info?, setting?, talk_history?, whisper_history?, new_talk?,
 * new_whisper?}; the agent
 * answers with a raw string (a name for NAME, free text for TALK and
 * WHISPER, a character name for VOTE, DIVINE, GUARD and ATTACK). Agents are
 * named, not numbered ("Minato", "ミナト", "Agent[01]"). This module decodes
 * a packet into plain C values (checked: bounded sizes, valid UTF-8, known
 * requests, roles and species) and encodes one back (the same JSON field
 * names, for a server and for tests). The length rule the server applies
 * to talks is core's (nlprules.h). Uses util, roles, nlprules and jansson (only wire sees it).
 *
 * Ownership: a decoded aw_nlp_packet owns every string and array in it;
 * aw_nlp_packet_free releases them. */
#ifndef AW_NLP_H
#define AW_NLP_H

#include <stdbool.h>
#include <stddef.h>

#include "engine.h"
#include "nlprules.h" /* the length rule: aw_nlp_count_length, aw_nlp_trim_length */
#include "roles.h"
#include "util.h"

/* Limits on what a packet may hold (a hostile server gets an error past them). */
#define AW_NLP_MAX_PACKET (4u << 20)  /* bytes of one message */
#define AW_NLP_MAX_NAME 256           /* bytes of a character name */
#define AW_NLP_MAX_TEXT 65536         /* bytes of a talk's text or the profile */
#define AW_NLP_MAX_HISTORY 4096       /* talks in one history */

typedef enum aw_nlp_req {
    AW_NLP_NAME,
    AW_NLP_INITIALIZE,
    AW_NLP_DAILY_INITIALIZE,
    AW_NLP_TALK,
    AW_NLP_WHISPER,
    AW_NLP_VOTE,
    AW_NLP_DIVINE,
    AW_NLP_GUARD,
    AW_NLP_ATTACK,
    AW_NLP_DAILY_FINISH,
    AW_NLP_FINISH,
    /* The group chat (aiwolf-nlp-common 0.7.0, the server with
     * setting.talk.duration / whisper.duration): no answer is owed; during
     * a phase the agent sends talks when it likes, and each talk the
     * server takes comes back to every agent of the phase in a broadcast
     * (new_talk, new_whisper). */
    AW_NLP_TALK_PHASE_START,
    AW_NLP_TALK_PHASE_END,
    AW_NLP_TALK_BROADCAST,
    AW_NLP_WHISPER_PHASE_START,
    AW_NLP_WHISPER_PHASE_END,
    AW_NLP_WHISPER_BROADCAST,
    AW_NLP_NREQ
} aw_nlp_req;

/* "NAME", "TALK", ...; NULL out of range. */
const char *aw_nlp_req_name(aw_nlp_req r);
/* Whether the server waits for an answer to r. */
bool aw_nlp_req_wants_reply(aw_nlp_req r);

typedef struct aw_nlp_talk {
    int idx, day, turn;
    char *agent; /* the speaker's name */
    char *text;
    bool skip, over;
    long long time; /* Unix ms (the server's since 0.7.0); -1: absent */
} aw_nlp_talk;

typedef struct aw_nlp_vote {
    int day;
    char *agent, *target;
} aw_nlp_vote;

typedef struct aw_nlp_judge {
    int day;
    char *agent, *target; /* agent NULL: none */
    aw_species result;
} aw_nlp_judge;

/* One agent of status_map (and role_map). */
typedef struct aw_nlp_seat {
    char *name;
    bool alive;
    aw_role role; /* AW_ROLE_NONE: not in role_map */
} aw_nlp_seat;

typedef struct aw_nlp_info {
    char *game_id;
    int day;
    char *agent;   /* the receiver's name */
    char *profile; /* NULL: none */
    aw_nlp_judge medium_result, divine_result;
    char *executed_agent, *attacked_agent; /* NULL: none */
    aw_nlp_vote *votes;
    int nvotes;
    aw_nlp_vote *attack_votes;
    int nattack_votes;
    /* status_map's agents, sorted by name (bytewise, as Go writes a map);
     * role_map's roles merged in; a role_map name not in status_map is an
     * error. */
    aw_nlp_seat *seats;
    int nseats;
    int remain_count, remain_length, remain_skip; /* -1: absent */
} aw_nlp_info;

/* The length rule of talks or whispers (setting.talk / setting.whisper). */
typedef struct aw_nlp_talk_setting {
    int max_count_per_agent, max_count_per_day;
    int count_in_word, count_spaces; /* -1: absent, else 0/1 */
    int per_talk, mention_length, per_agent, base_length; /* -1: absent */
    int max_skip;
    int duration; /* ms of a group-chat phase (0.7.0); -1: absent (turn-based) */
} aw_nlp_talk_setting;

typedef struct aw_nlp_setting {
    int agent_count;
    int max_day; /* -1: absent (no limit) */
    int role_num[AW_NROLES];
    bool vote_visibility;
    aw_nlp_talk_setting talk, whisper;
    int vote_max_count;
    bool vote_allow_self;
    int attack_max_count;
    bool attack_allow_self, attack_allow_no_target;
    int timeout_action_ms, timeout_response_ms;
} aw_nlp_setting;

typedef struct aw_nlp_packet {
    aw_nlp_req request;
    bool has_info, has_setting, has_talks, has_whispers;
    aw_nlp_info info;
    aw_nlp_setting setting;
    aw_nlp_talk *talks;
    int ntalks;
    aw_nlp_talk *whispers;
    int nwhispers;
    /* the talk a TALK_BROADCAST (new_talk) or WHISPER_BROADCAST
     * (new_whisper) carries: has_new and which */
    bool has_new, new_is_whisper;
    aw_nlp_talk new_talk;
} aw_nlp_packet;

/* Decodes one message. Returns 0, or a negative value with err saying what
 * is wrong (not JSON, an unknown request, a field of the wrong type or out
 * of bounds, text that is not UTF-8); *out is then empty (nothing to free,
 * though freeing it is harmless). Unknown fields are ignored, as the Go
 * server adds fields over time. */
int aw_nlp_decode(const char *msg, size_t len, aw_nlp_packet *out, aw_error *err);
void aw_nlp_packet_free(aw_nlp_packet *p);

/* Appends p as the server writes it (field names and omitted fields as in
 * the official model; maps with sorted keys). */
void aw_nlp_encode(const aw_nlp_packet *p, aw_buf *out);

#endif
