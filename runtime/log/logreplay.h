/* logreplay: replays a recorded game log (the official server's CSV format,
 * which our engine writes too) through our engine and says whether the engine
 * writes the very same log, byte for byte. It is the proof that the engine
 * plays by the official server's rules: the log fixes every decision the
 * players made and every random choice the server made, so whatever still
 * differs is a difference in the rules.
 *
 * How: the roles of the day-0 status block become the deal, its names the
 * agents' names; one replay seat per agent answers every request with what the
 * log recorded (talk and whisper texts in order, vote targets per round,
 * divine, guard and attack-vote targets, no answer where the official server
 * dropped an invalid action and wrote no line); the engine's choose hook makes
 * every random choice as the log shows it (talk and whisper order of each
 * turn, the executed or attacked agent after a tie). Attack-vote rounds are
 * not marked in a log (unless whisper phases stand before revotes): they are
 * cut where the voter number does not increase, or else in the first way that
 * fits the rules; a night where two different groupings of the votes into
 * rounds fit is counted as ambiguous (every fitting cut writes the same
 * lines). A request the log cannot answer (a talk request
 * where the log has no talk of that agent next, a vote that is not in the
 * round, an action our engine rejects that the official server logged, a
 * random choice the log does not show) is a divergence, reported as such.
 * The CSV our engine writes is compared as it is written and the replay stops
 * at the first line that differs.
 *
 * Uses logcheck (the line reader), engine, view, seat, gamelog, protocol (the
 * talk validator), settings and util. Ownership: the log text is borrowed for
 * the call; the FILEs in the options are borrowed; the report is filled in by
 * value and owns nothing. */
#ifndef AW_LOGREPLAY_H
#define AW_LOGREPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "settings.h"
#include "util.h"

typedef enum aw_replay_verdict {
    AW_REPLAY_REPRODUCED = 0, /* our engine wrote the same bytes and every request was answered from the log */
    AW_REPLAY_DIFFERS = 1,    /* a line differs, or the engine asked something the log cannot answer */
    AW_REPLAY_UNUSABLE = 2    /* not a complete game log: empty, a line that does not parse, no day-0
                                 status block, no result line, a cut-off last line, or a game our
                                 engine cannot set up (player count, roles) */
} aw_replay_verdict;

#define AW_REPLAY_TEXT 256

typedef struct aw_replay_report {
    aw_replay_verdict verdict;
    long lines;      /* lines in the recorded log */
    long ours_lines; /* lines our engine wrote (it stops at the first difference) */
    int players;

    /* The first line where the logs differ (1-based; 0 when none): both
     * lines, control bytes escaped as \xNN and cut to fit; an empty text
     * with *_eof set where that log had already ended. */
    long diff_line;
    char ours[AW_REPLAY_TEXT];
    bool ours_eof;
    char theirs[AW_REPLAY_TEXT];
    bool theirs_eof;

    /* The first request the log could not answer, action our engine refused
     * or random choice the log does not show (empty when none), and the line
     * of the recorded log it concerns (where it concerns no particular line:
     * the line the replay had reached). */
    char problem[512];
    long problem_line;

    /* UNUSABLE: the line (1-based; one past the last at the end of the file)
     * and why. */
    long error_line;
    char error[512];

    /* Nights whose attack votes can be cut into rounds in more than one way
     * that fits the rules, and the first attackVote line of the first one. */
    int ambiguous_nights;
    long ambiguous_line;
} aw_replay_report;

typedef struct aw_replay_options {
    /* Optional outputs, borrowed: the readable record of the replayed game
     * (the one `aiwolf play` prints), our CSV, and the JSON-lines events. */
    FILE *record;
    FILE *csv;
    FILE *events;
} aw_replay_options;

/* Replays the log in text[0..len) under the rule fields of rules (players
 * and role_count come from the log). opt may be NULL. Fills *out and returns
 * its verdict (0, 1, 2); returns a negative code with err filled only when
 * the call itself is wrong (NULL arguments). */
int aw_replay(const char *text, size_t len, const aw_settings *rules, const aw_replay_options *opt,
              aw_replay_report *out, aw_error *err);

#endif
