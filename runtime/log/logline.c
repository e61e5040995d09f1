/* logline: one line of a game log, parsed (see logline.h). The line is cut
 * into its fields by the shape its type calls for; every number must be
 * written canonically. */
#include "logline.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define MAXP AW_LOG_MAX_PLAYERS

typedef struct field {
    const char *p;
    size_t n;
} field;

static bool field_is(field f, const char *s)
{
    size_t n = strlen(s);
    return f.n == n && memcmp(f.p, s, n) == 0;
}

/* Parses a canonical decimal integer (no sign unless negatives are allowed,
 * no spaces, no leading zeros) in [lo, hi]. */
static int parse_int(field f, long lo, long hi, long *out)
{
    size_t i = 0;
    bool neg = false;
    if (f.n > 0 && f.p[0] == '-' && lo < 0) {
        neg = true;
        i = 1;
    }
    if (i >= f.n || f.n - i > 9)
        return -1;
    if (f.p[i] == '0' && f.n - i > 1)
        return -1;
    long v = 0;
    for (; i < f.n; i++) {
        if (f.p[i] < '0' || f.p[i] > '9')
            return -1;
        v = v * 10 + (f.p[i] - '0');
    }
    if (neg)
        v = -v;
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Writes at most 40 bytes of a field, escaped, for messages. */
static void show_field(char *dst, size_t cap, field f)
{
    size_t o = 0;
    for (size_t i = 0; i < f.n && o + 5 < cap; i++) {
        unsigned char ch = (unsigned char)f.p[i];
        if (i == 40) {
            o += (size_t)snprintf(dst + o, cap - o, "...");
            break;
        }
        if (ch < 0x20 || ch == 0x7f)
            o += (size_t)snprintf(dst + o, cap - o, "\\x%02x", ch);
        else
            dst[o++] = (char)ch;
    }
    dst[o < cap ? o : cap - 1] = '\0';
}

typedef struct shape {
    aw_logline_type type;
    const char *name;
    int nfields; /* including day and type */
    bool rest;   /* the last field takes the rest of the line (it may hold commas) */
    const char *form;
} shape;

static const shape shapes[] = {
    {AW_LINE_STATUS, "status", 6, true, "d,status,agent,ROLE,ALIVE|DEAD,name"},
    {AW_LINE_TALK, "talk", 6, true, "d,talk,idx,turn,agent,text"},
    {AW_LINE_WHISPER, "whisper", 6, true, "d,whisper,idx,turn,agent,text"},
    {AW_LINE_VOTE, "vote", 4, false, "d,vote,agent,target"},
    {AW_LINE_EXECUTE, "execute", 4, false, "d,execute,agent,ROLE"},
    {AW_LINE_DIVINE, "divine", 5, false, "d,divine,seer,target,HUMAN|WEREWOLF"},
    {AW_LINE_GUARD, "guard", 5, false, "d,guard,bodyguard,target,ROLE"},
    {AW_LINE_ATTACK_VOTE, "attackVote", 4, false, "d,attackVote,werewolf,target"},
    {AW_LINE_ATTACK, "attack", 4, false, "d,attack,target,true|false"},
    {AW_LINE_RESULT, "result", 5, false, "d,result,humans,werewolves,TEAM"},
    {AW_LINE_ERROR, "error", 3, false, "d,error,agent"},
};

#define BAD(...) (snprintf(why, whycap, __VA_ARGS__), -1)

static int parse_agent(field f, const char *what, long lo, int *out, char *why, size_t whycap)
{
    long v;
    char shown[200];
    if (parse_int(f, lo, MAXP, &v) != 0) {
        show_field(shown, sizeof shown, f);
        return BAD("the %s field '%s' is not an agent number (1 to %d)", what, shown, MAXP);
    }
    *out = (int)v;
    return 0;
}

static int parse_count(field f, const char *what, long hi, int *out, char *why, size_t whycap)
{
    long v;
    char shown[200];
    if (parse_int(f, 0, hi, &v) != 0) {
        show_field(shown, sizeof shown, f);
        return BAD("the %s field '%s' is not a number from 0 to %ld", what, shown, hi);
    }
    *out = (int)v;
    return 0;
}

static int parse_role(field f, aw_role *out, char *why, size_t whycap)
{
    char name[16];
    char shown[200];
    if (f.n < sizeof name) {
        memcpy(name, f.p, f.n);
        name[f.n] = '\0';
        aw_role r = aw_role_parse(name);
        if (r != AW_ROLE_NONE) {
            *out = r;
            return 0;
        }
    }
    show_field(shown, sizeof shown, f);
    char names[256];
    aw_role_list(names, sizeof names, " ", false);
    return BAD("'%s' is not a role (%s)", shown, names);
}

/* Parses one line (without its newline) into r; on a format error returns -1
 * with the reason in why. */
static int parse_line(const char *p, size_t n, aw_logline *r, char *why, size_t whycap)
{
    char shown[200];
    if (n == 0)
        return BAD("empty line");
    if (memchr(p, '\0', n))
        return BAD("the line holds a NUL byte (binary data, not a game log)");

    field f[6];
    size_t nf = 0, start = 0;
    /* Split the first two fields to learn the type. */
    for (size_t i = 0; i <= n && nf < 2; i++) {
        if (i == n || p[i] == ',') {
            f[nf].p = p + start;
            f[nf].n = i - start;
            nf++;
            start = i + 1;
        }
    }
    if (nf < 2 || start > n)
        return BAD("not a game log line: expected 'day,type,...' with comma-separated fields");
    const shape *sh = NULL;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        if (field_is(f[1], shapes[k].name))
            sh = &shapes[k];
    if (!sh) {
        show_field(shown, sizeof shown, f[1]);
        if (field_is(f[1], "banish"))
            return BAD("unknown line type 'banish' (old servers' name for execute; this checker reads the 0.6.x "
                       "format)");
        return BAD("unknown line type '%s' (types: status talk whisper vote execute divine guard attackVote "
                   "attack result error)",
                   shown);
    }
    long day;
    if (parse_int(f[0], 0, 1000000, &day) != 0) {
        show_field(shown, sizeof shown, f[0]);
        return BAD("the day field '%s' is not a day number", shown);
    }
    /* Split the remaining fields. */
    size_t i = start;
    while (nf < (size_t)sh->nfields) {
        size_t j = i;
        bool last = nf + 1 == (size_t)sh->nfields;
        if (!(last && sh->rest))
            while (j < n && p[j] != ',')
                j++;
        else
            j = n;
        if (i > n)
            break;
        f[nf].p = p + i;
        f[nf].n = j - i;
        nf++;
        i = j + 1;
        if (j == n)
            break;
    }
    if (nf < (size_t)sh->nfields)
        return BAD("a %s line has %d fields (%s), this one has %zu", sh->name, sh->nfields, sh->form, nf);
    if (i <= n)
        return BAD("a %s line has %d fields (%s), this one has more", sh->name, sh->nfields, sh->form);

    memset(r, 0, sizeof *r);
    r->type = sh->type;
    r->day = day;
    r->role = AW_ROLE_NONE;
    switch (sh->type) {
    case AW_LINE_STATUS:
        if (parse_agent(f[2], "agent", 1, &r->a, why, whycap) || parse_role(f[3], &r->role, why, whycap))
            return -1;
        if (field_is(f[4], "ALIVE"))
            r->flag = true;
        else if (!field_is(f[4], "DEAD")) {
            show_field(shown, sizeof shown, f[4]);
            return BAD("the status field '%s' is neither ALIVE nor DEAD", shown);
        }
        r->s = f[5].p;
        r->slen = f[5].n;
        return 0;
    case AW_LINE_TALK:
    case AW_LINE_WHISPER:
        if (parse_count(f[2], "idx", 100000000, &r->a, why, whycap) ||
            parse_count(f[3], "turn", 100000000, &r->b, why, whycap) ||
            parse_agent(f[4], "agent", 1, &r->c, why, whycap))
            return -1;
        r->s = f[5].p;
        r->slen = f[5].n;
        return 0;
    case AW_LINE_VOTE:
    case AW_LINE_ATTACK_VOTE:
        return parse_agent(f[2], "voter", 1, &r->a, why, whycap) || parse_agent(f[3], "target", 1, &r->b, why, whycap)
                   ? -1
                   : 0;
    case AW_LINE_EXECUTE:
        return parse_agent(f[2], "agent", 1, &r->a, why, whycap) || parse_role(f[3], &r->role, why, whycap) ? -1 : 0;
    case AW_LINE_DIVINE:
        if (parse_agent(f[2], "seer", 1, &r->a, why, whycap) || parse_agent(f[3], "target", 1, &r->b, why, whycap))
            return -1;
        if (field_is(f[4], "HUMAN"))
            r->species = AW_HUMAN;
        else if (field_is(f[4], "WEREWOLF"))
            r->species = AW_WOLF;
        else {
            show_field(shown, sizeof shown, f[4]);
            return BAD("the divine result '%s' is neither HUMAN nor WEREWOLF", shown);
        }
        return 0;
    case AW_LINE_GUARD:
        return parse_agent(f[2], "bodyguard", 1, &r->a, why, whycap) ||
                       parse_agent(f[3], "target", 1, &r->b, why, whycap) || parse_role(f[4], &r->role, why, whycap)
                   ? -1
                   : 0;
    case AW_LINE_ATTACK:
        if (field_is(f[2], "-1"))
            r->a = -1;
        else if (parse_agent(f[2], "target", 1, &r->a, why, whycap))
            return -1;
        if (field_is(f[3], "true"))
            r->flag = true;
        else if (!field_is(f[3], "false")) {
            show_field(shown, sizeof shown, f[3]);
            return BAD("the attack outcome '%s' is neither true nor false", shown);
        }
        return 0;
    case AW_LINE_RESULT:
        if (parse_count(f[2], "humans", MAXP, &r->a, why, whycap) ||
            parse_count(f[3], "werewolves", MAXP, &r->b, why, whycap))
            return -1;
        if (field_is(f[4], "VILLAGER"))
            r->team = AW_TEAM_VILLAGER;
        else if (field_is(f[4], "WEREWOLF"))
            r->team = AW_TEAM_WEREWOLF;
        else if (field_is(f[4], "OTHERS"))
            r->team = AW_TEAM_OTHERS;
        else if (field_is(f[4], "NONE"))
            r->team = AW_TEAM_NONE; /* no winner: the day limit (max_days), or abandoned (error lines) */
        else {
            show_field(shown, sizeof shown, f[4]);
            return BAD("the winner '%s' is not VILLAGER, WEREWOLF, OTHERS or NONE", shown);
        }
        return 0;
    case AW_LINE_ERROR:
        return parse_agent(f[2], "agent", 1, &r->a, why, whycap);
    }
    return BAD("internal error: unhandled line type");
}

#undef BAD

int aw_logline_parse(const char *line, size_t len, aw_logline *out, char *why, size_t whycap)
{
    aw_logline r;
    char scratch[1];
    if (!why || whycap == 0) {
        why = scratch;
        whycap = sizeof scratch;
    }
    if (!line || !out) {
        snprintf(why, whycap, "no line");
        return -1;
    }
    if (parse_line(line, len, &r, why, whycap) != 0)
        return -1;
    *out = r;
    return 0;
}

