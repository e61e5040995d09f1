/* logline: reads one line of an AIWolf game log (the official server's CSV
 * format, docs/log-format.md) into its fields. The log checker and the
 * replay both read logs through it. Uses settings and util. */
#ifndef AW_LOGLINE_H
#define AW_LOGLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"
#include "util.h"

/* The largest player count a log may name. The official server has no fixed
 * limit; our engine stops at AW_MAX_PLAYERS. */
#define AW_LOG_MAX_PLAYERS 100

/* One line of a game log, parsed (the reader the checker and the replay share). The meaning of a, b, c depends on the type: status agent;
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
    AW_LINE_RESULT,
    AW_LINE_ERROR /* an agent failed (an error ratio's count): a */
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
 * to AW_LOG_MAX_PLAYERS (and our error line). Returns 0, or -1 with a one-line reason in
 * why[0..whycap). The line is borrowed; out->s points into it. */
int aw_logline_parse(const char *line, size_t len, aw_logline *out, char *why, size_t whycap);

#endif
