/* engine: the game master as a pure state machine. It owns the rules and the
 * game's random generator and does no I/O: aw_engine_next() says which seats
 * must be told or asked what (a request), the driver answers with
 * aw_engine_reply_text()/aw_engine_reply_target(), and everything that
 * happens is reported through an event callback (the log, the console record
 * and the JSON-lines event file are all written from events). The same engine
 * runs flat out in one thread with in-process Lua seats, or waits on sockets
 * under an event loop.
 *
 * Uses settings, rng and util. Talk validation is injected (hooks.talk.validate),
 * so the engine does not depend on the protocol module.
 *
 * Agents are numbered 1..n everywhere ("agent" and "seat" are the same
 * number). Ownership: aw_engine_new returns an engine owned by the caller
 * (aw_engine_free). Pointers inside events and the state are borrowed and
 * valid until the next call into the engine. */
#ifndef AW_ENGINE_H
#define AW_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "settings.h"
#include "util.h"

#define AW_NO_AGENT 0 /* no target / no reply */

typedef enum aw_req_kind {
    AW_REQ_NONE = 0,
    AW_REQ_INITIALIZE,
    AW_REQ_DAILY_INITIALIZE,
    AW_REQ_DAILY_FINISH,
    AW_REQ_TALK,
    AW_REQ_WHISPER,
    AW_REQ_VOTE,
    AW_REQ_DIVINE,
    AW_REQ_GUARD,
    AW_REQ_ATTACK,
    AW_REQ_FINISH
} aw_req_kind;

const char *aw_req_name(aw_req_kind k); /* official request names: "TALK", "DAILY_FINISH", ... */
bool aw_req_needs_reply(aw_req_kind k);
bool aw_req_wants_text(aw_req_kind k); /* TALK and WHISPER; the others that need a reply want a target */

/* One request: the seats (ascending, except TALK/WHISPER which go to one seat
 * at a time) that must be told or asked. Requests the rules make simultaneous
 * (votes, attack votes, divine, guard, notifications) come as one batch. */
typedef struct aw_request {
    aw_req_kind kind;
    int nseats;
    int seats[AW_MAX_PLAYERS];
} aw_request;

/* One talk or whisper. */
typedef struct aw_talk {
    int day, idx, turn, agent;
    char *text;   /* as said (or "Skip"/"Over" where the rules replaced it) */
    size_t len;
    void *parsed; /* what hooks.talk.validate returned for it, or NULL */
} aw_talk;

typedef struct aw_vote {
    int day, agent, target;
} aw_vote;

typedef struct aw_judge {
    int day, agent, target; /* agent 0: no judge */
    aw_species result;
} aw_judge;

typedef enum aw_event_kind {
    AW_EV_STATUS,        /* agent, role, alive: one per agent at each day's start and at the end */
    AW_EV_TALK,          /* talk */
    AW_EV_WHISPER,       /* talk */
    AW_EV_VOTE,          /* agent, target, round (0 = first) */
    AW_EV_EXECUTE,       /* agent, role */
    AW_EV_DIVINE,        /* agent (seer), target, species */
    AW_EV_GUARD,         /* agent (bodyguard), target, role (of the target) */
    AW_EV_ATTACK_VOTE,   /* agent (werewolf), target, round */
    AW_EV_ATTACK,        /* target (-1: none), flag (true: the target dies) */
    AW_EV_RESULT,        /* humans, wolves, team; flag: abandoned (too many agents failed) */
    AW_EV_SUBSTITUTE,    /* agent, req, given (what it answered; 0 none), target (what the rules
                            used; 0 none), reason */
    AW_EV_TALK_REPLACED, /* agent, req (TALK/WHISPER), text (what it said), talk (what was logged), reason */
    AW_EV_ERROR          /* agent: it failed (aw_engine_fail), counted at the end of a phase */
} aw_event_kind;

typedef struct aw_event {
    aw_event_kind kind;
    int day;
    int agent;
    int target;
    int given;
    int round;
    aw_role role;
    aw_species species;
    bool alive;
    bool flag;
    int humans, wolves;
    aw_team team;
    aw_req_kind req;
    const aw_talk *talk;
    const char *text; /* borrowed, may contain anything: escape before printing */
    size_t text_len;
    const char *reason;
} aw_event;

/* The random choices of a game (besides the deal). */
typedef enum aw_choice {
    AW_CHOICE_TALK_ORDER,    /* the next talker of a turn (agent 0), or whisperer */
    AW_CHOICE_WHISPER_ORDER,
    AW_CHOICE_EXECUTE_TIE,   /* who is executed after a tie */
    AW_CHOICE_ATTACK_TIE,    /* who is attacked after a tie */
    AW_CHOICE_SUBSTITUTE     /* the rules' substitute for agent's invalid action */
} aw_choice;

/* Decides whether a talk/whisper text (one line, no control bytes,
 * non-empty, already checked) is a valid utterance under `mode`; may hand
 * back a parsed form in *parsed. Returns 0, or negative with err filled. The
 * one signature of the engine's hook, the driver's option and the child
 * seat's option. */
typedef int aw_validate_fn(void *ud, const char *text, size_t len, aw_validation mode, void **parsed, aw_error *err);

/* The talk hooks, one value wherever talks get a parsed form: the engine's
 * hooks, the drivers' options (game.h, netclient.h, wireagent.h) and the
 * child seat's (childseat.h, childframe.h). validate as above (NULL: talks
 * carry no parsed form); free_parsed releases what validate handed back
 * (NULL: nothing to release). Both get the ud of the struct they sit in
 * (NULL where there is none). talkhooks.h gives the protocol's pair. */
typedef struct aw_talk_hooks {
    aw_validate_fn *validate;
    void (*free_parsed)(void *ud, void *parsed);
} aw_talk_hooks;

typedef struct aw_engine_hooks {
    /* Everything that happens, in the order of the official game log. */
    void (*event)(void *ud, const aw_event *ev);
    /* Decides whether a talk/whisper text (one line, no control bytes,
     * non-empty, already checked) is a valid utterance; may hand back a parsed
     * form that the engine keeps with the talk and frees with free_parsed.
     * A NULL validate accepts every such line. */
    aw_talk_hooks talk;
    /* Makes the game's random choices instead of the seeded generator (to
     * replay a recorded game): returns an index into options[0..n). NULL, or
     * a return value out of range, leaves the choice to the generator. */
    int (*choose)(void *ud, aw_choice kind, int agent, const int *options, int n);
    void *ud;
} aw_engine_hooks;

/* The game as the engine sees it: read-only for everyone else (the view
 * module decides what each seat may see of it). */
typedef struct aw_state {
    int n;
    int day;
    aw_role role[AW_MAX_PLAYERS + 1];
    bool alive[AW_MAX_PLAYERS + 1];
    const char *name[AW_MAX_PLAYERS + 1];

    /* today's talks and whispers */
    const aw_talk *talks;
    int ntalks;
    const aw_talk *whispers;
    int nwhispers;
    int remain_talk[AW_MAX_PLAYERS + 1];    /* -1: not in the map */
    int remain_whisper[AW_MAX_PLAYERS + 1]; /* -1: not in the map */

    /* votes: the latest round today, and yesterday's final round */
    aw_vote latest_votes[AW_MAX_PLAYERS];
    int nlatest_votes;
    aw_vote votes[AW_MAX_PLAYERS];
    int nvotes;
    int executed;        /* yesterday's execution, 0 none */
    int latest_executed; /* today's execution, 0 none */
    int last_dead[AW_MAX_PLAYERS];
    int nlast_dead;

    aw_judge divine_result; /* delivered today (from last night) */
    aw_judge medium_result; /* delivered today (yesterday's execution) */
    int guarded;            /* last night's guard target, 0 none */
    int attacked;           /* last night's attack target, 0 none */
    aw_vote attack_votes[AW_MAX_PLAYERS];        /* last night's final attack round */
    int nattack_votes;
    aw_vote latest_attack_votes[AW_MAX_PLAYERS]; /* tonight's latest attack round */
    int nlatest_attack_votes;

    bool finished;
    aw_team winner;
    /* Agents that failed (aw_engine_fail), as counted at the end of the
     * phases so far; abandoned: the game ended because they reached
     * aw_settings_error_limit (winner AW_TEAM_NONE). */
    bool failed[AW_MAX_PLAYERS + 1];
    int nfailed;
    bool abandoned;
    int talks_per_day_count;  /* number of days with a talk count below */
    const int *talks_per_day; /* talks_per_day[d]: talks on day d (for reference checks) */
    const int *whispers_per_day;
} aw_state;

typedef struct aw_engine aw_engine;

/* Creates a game. names[1..n] are the agents' names (copied; NULL = "AgentNN").
 * deal[1..n] fixes roles (AW_ROLE_NONE = dealt at random); deal may be NULL.
 * Fails with a message when the settings or the deal are impossible. */
aw_engine *aw_engine_new(const aw_settings *s, uint64_t seed, const char *const *names, const aw_role *deal,
                         const aw_engine_hooks *hooks, aw_error *err);
void aw_engine_free(aw_engine *g);

/* Advances the game to the next request and copies it into *req. Returns 0
 * with a request, 1 when the game is over (after the FINISH request has been
 * handed out). Seats of a request that needed a reply and got none are
 * treated as having answered nothing. */
int aw_engine_next(aw_engine *g, aw_request *req);

/* Answers of the current request. text NULL or "" means no answer (Skip);
 * target AW_NO_AGENT means none. Return -AW_ESTATE when the seat was not
 * asked for that kind of answer. */
int aw_engine_reply_text(aw_engine *g, int agent, const char *text, size_t len);
int aw_engine_reply_target(aw_engine *g, int agent, int target);

/* Agent a has failed for good (its connection is lost, it did not answer a
 * NAME ping), as the official NLP server marks an agent with an error.
 * Under an error ratio (settings' error_ratio; else this does nothing) the
 * engine counts it at the end of the current phase, in ascending agent
 * order with the others of the phase (an AW_EV_ERROR each), and ends the
 * game there with no winner once aw_settings_error_limit agents have
 * failed. The phases end after the day's talk, the votes (the execution),
 * the divination, the night's whisper, the guard, and the attack (when the
 * next day begins); a game whose winner is known then is abandoned all the
 * same. The agent is still asked as before: the driver answers for it
 * (no answer: the rules' substitutes). Once per agent; nothing after the
 * game is over. */
void aw_engine_fail(aw_engine *g, int agent);

const aw_state *aw_engine_state(const aw_engine *g);
const aw_settings *aw_engine_settings(const aw_engine *g);
uint64_t aw_engine_seed(const aw_engine *g);

#endif
