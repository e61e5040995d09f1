/* logcheck: reads an AIWolf game log (the official server's CSV format, which
 * our engine also writes) and decides whether it records a legal, finished
 * game under a set of rules (aw_settings). It replays the game line by line —
 * status blocks, talk turns, vote rounds, executions, divinations, whispers,
 * guards, attack votes and attacks — and stops at the first line the rules do
 * not allow, saying which line and why. docs/log-format.md describes the
 * format and every check.
 *
 * The number of players and the roles come from the log's day-0 status block;
 * only the rule fields of the settings are used (players and role_count are
 * ignored unless the options ask for a role table). Talk text validity is not
 * judged here: an optional hook (aw_logcheck_options.validate) is called for
 * every talk and whisper text, from one place in logcheck.c
 * (check_talk_text).
 *
 * Uses settings and util. Ownership: the text is borrowed for the duration of
 * the call; the report is filled in by value and owns nothing. */
#ifndef AW_LOGCHECK_H
#define AW_LOGCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"
#include "util.h"

/* The largest player count the checker accepts in a log. The official server
 * has no fixed limit; our engine stops at AW_MAX_PLAYERS. */
#define AW_LOGCHECK_MAX_PLAYERS 100

typedef enum aw_logcheck_verdict {
    AW_LOG_LEGAL = 0,     /* a complete game that follows the rules */
    AW_LOG_ILLEGAL = 1,   /* a line breaks the rules or the format */
    AW_LOG_INCOMPLETE = 2 /* every line is legal but the log stops before the result line
                             (an abandoned, crashed or truncated game) */
} aw_logcheck_verdict;

typedef struct aw_logcheck_report {
    aw_logcheck_verdict verdict;
    /* Where it went wrong (ILLEGAL and INCOMPLETE): the 1-based line number
     * (one past the last line when the log ended too early), the line itself
     * (cut to fit, control bytes escaped as \xNN; empty at the end of the
     * file) and why. */
    long line;
    char text[256];
    char reason[512];
    /* What the log showed (filled as far as the check got). */
    int players;
    int role_count[AW_NROLES];
    int days;       /* the day number of the result line (LEGAL only) */
    aw_team winner; /* AW_TEAM_NONE unless LEGAL */
    long lines;     /* lines read */
} aw_logcheck_report;

/* One line of a game log, parsed (the reader the checker uses, shared with
 * logreplay). The meaning of a, b, c depends on the type: status agent;
 * talk/whisper idx, turn, agent; vote/attackVote voter, target; execute
 * agent; divine seer, target; guard bodyguard, target; attack target (-1:
 * nobody); result humans, werewolves. */
typedef enum aw_logline_type {
    AW_LINE_STATUS,
    AW_LINE_TALK,
    AW_LINE_WHISPER,
    AW_LINE_VOTE,
    AW_LINE_EXECUTE,
    AW_LINE_DIVINE,
    AW_LINE_GUARD,
    AW_LINE_ATTACK_VOTE,
    AW_LINE_ATTACK,
    AW_LINE_RESULT
} aw_logline_type;

typedef struct aw_logline {
    aw_logline_type type;
    long day;
    int a, b, c;
    aw_role role;       /* status, execute, guard; AW_ROLE_NONE otherwise */
    bool flag;          /* status: ALIVE; attack: true */
    aw_species species; /* divine */
    aw_team team;       /* result */
    const char *s;      /* talk/whisper text, status name: borrowed from the line */
    size_t slen;
} aw_logline;

/* Parses one line (len bytes, without its line ending) in the format
 * docs/log-format.md describes: ten line types, canonical numbers, agents 1
 * to AW_LOGCHECK_MAX_PLAYERS. Returns 0, or -1 with a one-line reason in
 * why[0..whycap). The line is borrowed; out->s points into it. */
int aw_logline_parse(const char *line, size_t len, aw_logline *out, char *why, size_t whycap);

/* Decides whether one talk or whisper text is a valid utterance under the
 * given validation mode. Returns 0 when it is, or a negative code with
 * err->msg saying why not. The text is one line, borrowed, not NUL-terminated
 * at len. */
typedef int (*aw_logcheck_validate_fn)(void *ud, const char *text, size_t len, aw_validation mode, aw_error *err);

typedef struct aw_logcheck_options {
    /* When non-NULL, the day-0 roles must match these counts exactly
     * (AW_NROLES entries, borrowed). */
    const int *roles;
    /* When true, the roles must be the official default table for the log's
     * player count (aw_default_roles). */
    bool strict_roles;
    /* Talk/whisper text validator (NULL: any non-empty text is accepted). */
    aw_logcheck_validate_fn validate;
    void *validate_ud;
} aw_logcheck_options;

/* Checks the log in text[0..len) against the rules in rules (players and
 * role_count are not used). opt may be NULL. Fills *out and returns its
 * verdict (0 legal, 1 illegal, 2 incomplete); returns a negative code with
 * err filled only when the call itself is wrong (NULL arguments). */
int aw_logcheck(const char *text, size_t len, const aw_settings *rules, const aw_logcheck_options *opt,
                aw_logcheck_report *out, aw_error *err);

#endif
