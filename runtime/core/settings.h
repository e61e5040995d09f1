/* settings: roles, teams and every named rule setting of a game, with the
 * three presets (aiwolf, seed2015, regulation) and the official role tables.
 * Every difference between rule sets is one field here, so users can mix them
 * ("--preset aiwolf --set max_revote=0"). Uses roles and util. */
#ifndef AW_SETTINGS_H
#define AW_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "roles.h"
#include "util.h"

#define AW_MIN_PLAYERS 3
#define AW_MAX_PLAYERS 18

/* How the talk phase is organised. */
typedef enum aw_talk_mode {
    AW_TALK_TURNS,  /* official: turns in random order, talk limits, Skip/Over rules */
    AW_TALK_ROUNDS  /* seed 003: rounds, werewolves whisper after every round */
} aw_talk_mode;

/* What happens to an invalid night action. */
typedef enum aw_invalid_action {
    AW_INVALID_DROP,   /* the action does not happen (official) */
    AW_INVALID_RANDOM  /* a random legal target is used instead (seed 003) */
} aw_invalid_action;

/* The names agents know each other by in the NLP division (nlprules.h). */
typedef enum aw_names {
    AW_NAMES_NONE, /* Agent[NN], as in the protocol division */
    AW_NAMES_EN,   /* the official NLP server's English profiles: Minato, Takumi, ... */
    AW_NAMES_JA    /* its Japanese profiles: ミナト, タクミ, ... */
} aw_names;

/* How talk and whisper text is validated. */
typedef enum aw_validation {
    AW_VALIDATE_STRICT,  /* exactly what the official validator accepts */
    AW_VALIDATE_LENIENT, /* also the seed's spellings (Agent1, OVER, SKIP) */
    AW_VALIDATE_OFF      /* any single line of text */
} aw_validation;

typedef struct aw_settings {
    char preset[16];             /* name of the preset these started from */
    int players;                 /* 3..18 */
    int role_count[AW_NROLES];   /* sums to players */

    aw_talk_mode talk_mode;
    int max_talk;                /* talks per agent per day, Over/Skip not counted; 0 = no limit */
    int max_talk_turn;           /* turns (official) or rounds (seed) per day */
    int max_whisper;             /* whispers per werewolf per phase; 0 = no limit */
    int max_whisper_turn;        /* whisper turns per phase */
    int max_skip;                /* more consecutive Skips than this become Over; -1 = off */
    int talk_end_all_skip_turns; /* end talk after this many consecutive turns with no real talk; 0 = off */
    bool talk_on_first_day;
    bool whisper_on_first_night; /* werewolves whisper on night 0 (official) */
    bool whisper_at_night;       /* werewolves whisper after the execution (official) */
    bool whisper_single_wolf;    /* a lone werewolf is still asked to whisper */
    int max_revote;              /* execution revotes after a tie */
    int max_attack_revote;       /* attack revotes after a tie */
    bool whisper_before_revote;  /* werewolves whisper again before an attack revote */
    bool enable_no_attack;       /* werewolves may attack nobody */
    bool enable_no_execution;    /* a final tie executes nobody */
    bool vote_visible;           /* agents see who voted for whom */
    aw_invalid_action invalid_attack;
    aw_invalid_action invalid_divine;
    aw_invalid_action invalid_guard;
    bool divine_dead_target;     /* divining a dead agent is valid */
    bool guard_dead_target;      /* guarding a dead agent is valid (and logged) */
    aw_validation validation;
    int time_limit_ms;           /* budget per agent call */
    int max_days;                /* the game ends with no winner after this day; 0 = no limit */
    /* The NLP division (nlprules.h): a talk or whisper keeps at most
     * talk_length characters before its first "@Name" mention and at most
     * mention_length after it (0: no limit); names are what agents are
     * called in text and on the NLP wire. */
    int talk_length;
    int mention_length;
    aw_names character_names;
    /* The NLP server's error ratio (its max_continue_error_ratio), in
     * thousandths (200: 0.2): a game in which the agents that failed
     * (aw_engine_fail: a connection lost, a NAME ping unanswered) reach
     * aw_settings_error_limit ends at the end of a phase with no winner,
     * abandoned. 0: off (the protocol division). */
    int error_ratio;
    /* serve --nlp: a WebSocket agent that lets an answer pass its time
     * limit is sent NAME and has this long to answer it with its own name
     * (the official timeout.response), else it has failed; 0: no ping. */
    int ping_timeout_ms;
    /* How `serve --nlp` runs the talk (whisper) phase for NLP agents: 0,
     * turn by turn (a TALK request, an answer: the official server of
     * February 2026); more, as a group chat of that many ms (the official
     * server's talk.duration, aiwolf-nlp-common 0.7.0: TALK_PHASE_START,
     * talks sent unasked, TALK_BROADCAST, TALK_PHASE_END). The engine's
     * game is the same either way. */
    int talk_duration;
    int whisper_duration;
} aw_settings;

/* Fills s with a preset for n players with its default role table.
 * Presets: "aiwolf" (official server 0.6.x defaults), "seed2015" (seed 003),
 * "regulation" (2021-2023 contest regulation), "nlp" (the NLP division's
 * server, aiwolf-nlp-server, in Japanese: 5, 9 or 13 players), "nlp-en"
 * (the same in English), and "nlp5", "nlp13", "nlp5-en", "nlp13-en" (the
 * same; commands given no number of players take the one they name). */
int aw_settings_preset(aw_settings *s, const char *preset, int players, aw_error *err);

/* The players a preset is meant for when no number is given (nlp5: 5,
 * nlp13: 13), or 0. Any number of players may use any preset. */
int aw_settings_preset_players(const char *preset);

/* The official default role table for n players into counts[AW_NROLES]. */
int aw_default_roles(int players, int counts[AW_NROLES], aw_error *err);

/* Parses "SEER=1,WEREWOLF=2,..." into counts (unlisted roles 0) and sets
 * players to their sum. */
int aw_parse_roles(const char *spec, int counts[AW_NROLES], int *players, aw_error *err);

/* Applies one "name=value" override (the names are the field names above). */
int aw_settings_set(aw_settings *s, const char *assignment, aw_error *err);

/* A preset for n players with the overrides sets[0..nsets) applied in order:
 * what --preset and --set give on every command line. */
int aw_settings_from(aw_settings *s, const char *preset, int players, const char *const *sets, int nsets,
                     aw_error *err);

/* Checks that the settings describe a game the engine can run (player
 * count, role counts, at least one werewolf, supported roles). A game decided
 * before it starts (as many werewolves as humans) passes: the engine then
 * goes straight to the result, as the official server does. */
int aw_settings_check(const aw_settings *s, aw_error *err);

/* aw_settings_check, and also refuses a table decided before it starts — for
 * commands that set up new games. */
int aw_settings_check_playable(const aw_settings *s, aw_error *err);

/* How many failed agents end a game of `players` (int(players *
 * error_ratio), at least 1), or 0 when error_ratio is off. */
int aw_settings_error_limit(const aw_settings *s, int players);

/* Writes every setting as "name=value" lines into buf (for --help and logs). */
void aw_settings_describe(const aw_settings *s, aw_buf *buf);

#endif
