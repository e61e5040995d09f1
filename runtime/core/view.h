/* view: the one place that decides what each seat may know. It turns the
 * engine's full state into the gameInfo of one agent, exactly as the official
 * server's rules allow (wire-protocol.md, "gameInfo"): whispers, attack votes
 * and the attacked agent to werewolves only, divination results to the seer
 * only, medium results to the medium only, the guard to the bodyguard only,
 * roles of others only to fellow werewolves (and freemasons), and every role
 * at the end. Seats (Lua, wire) build their messages from aw_info alone.
 * Uses engine (read-only) and settings. */
#ifndef AW_VIEW_H
#define AW_VIEW_H

#include "engine.h"

/* What the NLP division adds to a view (agents have names there, talks
 * are free text), or NULL in the protocol division. Built by the NLP client
 * (nlpagent.c); borrowed for the call. */
typedef struct aw_info_nlp {
    const char *const *names; /* names[1..n]: each agent's character name */
    const char *profile;      /* the receiver's profile (NULL: none) */
    const char *lang;         /* "en" or "ja": the language the game is played in */
    int remain_count, remain_length, remain_skip; /* -1: not given by the server */
    int per_talk, base_length, mention_length;    /* the length rule (-1: none) */
} aw_info_nlp;

typedef struct aw_info {
    int agent; /* the receiver */
    int day;
    int n;
    aw_role my_role;
    aw_role role[AW_MAX_PLAYERS + 1]; /* AW_ROLE_NONE where not visible */
    bool alive[AW_MAX_PLAYERS + 1];
    int remain_talk[AW_MAX_PLAYERS + 1];    /* -1: not in the map */
    int remain_whisper[AW_MAX_PLAYERS + 1]; /* -1: not in the map (always for non-werewolves) */
    bool existing_role[AW_NROLES];

    const aw_talk *talks; /* borrowed from the engine, valid until its next call */
    int ntalks;
    const aw_talk *whispers; /* NULL/0 for non-werewolves */
    int nwhispers;

    const aw_vote *votes; /* yesterday's final round (NULL/0 when votes are not visible) */
    int nvotes;
    const aw_vote *latest_votes; /* today's latest round */
    int nlatest_votes;
    int executed, latest_executed; /* 0: none */
    int last_dead[AW_MAX_PLAYERS];
    int nlast_dead;

    aw_judge divine_result; /* agent 0 when none or not visible */
    aw_judge medium_result;
    int attacked; /* werewolves only, 0 otherwise */
    const aw_vote *attack_votes;
    int nattack_votes;
    const aw_vote *latest_attack_votes;
    int nlatest_attack_votes;
    int guarded; /* bodyguard only */
    const aw_info_nlp *nlp; /* NULL but in an NLP game */
} aw_info;

/* Builds agent's view of the game as of the request `kind` (FINISH reveals
 * every role). */
void aw_view_build(const aw_engine *g, int agent, aw_req_kind kind, aw_info *out);

#endif
