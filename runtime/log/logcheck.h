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
 * Uses logline (the line reader), settings and util. Ownership: the text is borrowed for the duration of
 * the call; the report is filled in by value and owns nothing. */
#ifndef AW_LOGCHECK_H
#define AW_LOGCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "logline.h"
#include "settings.h"
#include "util.h"

/* The largest player count the checker accepts in a log (logline.h). */
#define AW_LOGCHECK_MAX_PLAYERS AW_LOG_MAX_PLAYERS

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
    bool abandoned; /* LEGAL, no winner: error lines reached the rules' limit (error_ratio) */
    int failed;     /* LEGAL: the agents with an error line */
    long lines;     /* lines read */
} aw_logcheck_report;

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
