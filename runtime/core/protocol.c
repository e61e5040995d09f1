/* protocol: parser, printer, validator and tree utilities for AIWolf protocol
 * 3.6 sentences (see protocol.h for the contract).
 *
 * The strict grammar reproduces what the official Java library (AIWolfCommon
 * 0.6.x, Content.java) accepts. That library matches each (trimmed) text
 * against anchored regular expressions, one per sentence shape; the text of
 * an operator's operands is `\(.*\)` up to the last ')' of the text, which it
 * then cuts into top-level balanced groups, ignoring whatever lies between
 * them. We do the same by hand, in one pass per nesting level, without a
 * regex engine: the Java character classes involved are ASCII-only (`\s` is
 * [ \t\n\x0B\f\r], `\d` is [0-9], `\p{Upper}` is [A-Z]), `.` stops at line
 * terminators, and `$` also matches before one final line terminator.
 * Whatever made the official library throw (an operator without its
 * operands, a number above 2^31-1) is simply invalid here.
 *
 * Uses util and settings. */
#include "protocol.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ names */

static const char *const verb_names[AW_V_COUNT] = {
    "ESTIMATE", "COMINGOUT", "DIVINATION", "GUARD",   "VOTE",    "ATTACK",   "DIVINED", "IDENTIFIED",
    "GUARDED",  "VOTED",     "ATTACKED",   "AGREE",   "DISAGREE", "Over",    "Skip",    "REQUEST",
    "INQUIRE",  "BECAUSE",   "DAY",        "NOT",     "AND",     "OR",       "XOR",
};

/* Seed spelling of the control words. */
static const char *const seed_over = "OVER", *const seed_skip = "SKIP";

const char *aw_verb_name(aw_verb v)
{
    return (unsigned)v < AW_V_COUNT ? verb_names[v] : "?";
}

int aw_verb_parse(const char *name)
{
    for (int i = 0; i < AW_V_COUNT; i++)
        if (strcmp(name, verb_names[i]) == 0)
            return i;
    return -1;
}

unsigned aw_verb_flags(aw_verb v)
{
    switch (v) {
    case AW_V_ESTIMATE:
    case AW_V_COMINGOUT:
        return AW_HAS_TARGET | AW_HAS_ROLE;
    case AW_V_DIVINED:
    case AW_V_IDENTIFIED:
        return AW_HAS_TARGET | AW_HAS_SPECIES;
    case AW_V_DIVINATION:
    case AW_V_GUARD:
    case AW_V_VOTE:
    case AW_V_ATTACK:
    case AW_V_GUARDED:
    case AW_V_VOTED:
    case AW_V_ATTACKED:
        return AW_HAS_TARGET;
    case AW_V_AGREE:
    case AW_V_DISAGREE:
        return AW_HAS_TALK;
    case AW_V_REQUEST:
    case AW_V_INQUIRE:
        return AW_HAS_TARGET | AW_HAS_ARGS;
    case AW_V_DAY:
        return AW_HAS_DAY | AW_HAS_ARGS;
    case AW_V_BECAUSE:
    case AW_V_NOT:
    case AW_V_AND:
    case AW_V_OR:
    case AW_V_XOR:
        return AW_HAS_ARGS;
    default:
        return 0;
    }
}

void aw_verb_arity(aw_verb v, size_t *min, size_t *max)
{
    size_t lo = 0, hi = 0;
    switch (v) {
    case AW_V_REQUEST:
    case AW_V_INQUIRE:
    case AW_V_NOT:
    case AW_V_DAY:
        lo = hi = 1;
        break;
    case AW_V_BECAUSE:
    case AW_V_XOR:
        lo = hi = 2;
        break;
    case AW_V_AND:
    case AW_V_OR:
        /* The official library accepts AND/OR with no operand at all (when
         * the parentheses do not balance); builders should give at least 1. */
        lo = 0;
        hi = 0;
        break;
    default:
        break;
    }
    if (min)
        *min = lo;
    if (max)
        *max = hi;
}

/* A role name in talk text: a role of the table (the official Role enum's
 * names; valueOf is exact) or ANY. */
const char *aw_protocol_role_name(aw_role r)
{
    if (r == AW_ROLE_ANY)
        return "ANY";
    return r >= 0 && r < AW_NROLES ? aw_role_name(r) : "?";
}

const char *aw_protocol_species_name(aw_species s)
{
    return s == AW_SPECIES_ANY ? "ANY" : s == AW_WOLF ? "WEREWOLF" : "HUMAN";
}

/* ----------------------------------------------------------------- nodes */

aw_sentence *aw_sentence_new(aw_verb v)
{
    aw_sentence *s = aw_xcalloc(1, sizeof *s);
    s->verb = v;
    s->subject = AW_UNSPEC;
    s->who = AW_UNSPEC;
    s->target = AW_ANY;
    s->role = AW_ROLE_ANY;
    s->species = AW_SPECIES_ANY;
    return s;
}

void aw_sentence_add(aw_sentence *s, aw_sentence *arg)
{
    /* The capacity is implied by nargs: the array doubles whenever nargs
     * reaches a power of two, so a long AND costs O(n), not O(n^2). */
    size_t n = s->nargs;
    if (n == 0 || (n & (n - 1)) == 0)
        s->args = aw_xrealloc(s->args, (n ? 2 * n : 1) * sizeof *s->args);
    s->args[s->nargs++] = arg;
}

void aw_sentence_free(aw_sentence *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nargs; i++)
        aw_sentence_free(s->args[i]);
    free(s->args);
    free(s);
}

aw_sentence *aw_sentence_copy(const aw_sentence *s)
{
    aw_sentence *c = aw_xmalloc(sizeof *c);
    *c = *s;
    c->args = NULL;
    c->nargs = 0;
    for (size_t i = 0; i < s->nargs; i++)
        aw_sentence_add(c, aw_sentence_copy(s->args[i]));
    return c;
}

bool aw_sentence_equal(const aw_sentence *a, const aw_sentence *b)
{
    if (a->verb != b->verb || a->subject != b->subject)
        return false;
    unsigned f = aw_verb_flags(a->verb);
    if ((f & AW_HAS_TARGET) && a->target != b->target)
        return false;
    if ((f & AW_HAS_ROLE) && a->role != b->role)
        return false;
    if ((f & AW_HAS_SPECIES) && a->species != b->species)
        return false;
    if ((f & AW_HAS_TALK) &&
        (a->talk_type != b->talk_type || a->talk_day != b->talk_day || a->talk_id != b->talk_id))
        return false;
    if ((f & AW_HAS_DAY) && a->day != b->day)
        return false;
    if (a->nargs != b->nargs)
        return false;
    for (size_t i = 0; i < a->nargs; i++)
        if (!aw_sentence_equal(a->args[i], b->args[i]))
            return false;
    return true;
}

/* The subject a node's operands have when they omit theirs: the target for
 * REQUEST and INQUIRE, the node's own (resolved) subject otherwise. */
static int implied_for_args(const aw_sentence *s, int resolved)
{
    return (s->verb == AW_V_REQUEST || s->verb == AW_V_INQUIRE) ? s->target : resolved;
}

static void normalize_in(aw_sentence *s, int implied)
{
    if (s->subject == implied)
        s->subject = AW_UNSPEC;
    int resolved = s->subject != AW_UNSPEC ? s->subject : implied;
    int inner = implied_for_args(s, resolved);
    for (size_t i = 0; i < s->nargs; i++)
        normalize_in(s->args[i], inner);
}

void aw_sentence_normalize(aw_sentence *s)
{
    /* At the top nothing is implied: an explicit subject stays. */
    normalize_in(s, AW_UNSPEC);
}

static void resolve_in(aw_sentence *s, int implied)
{
    s->who = s->subject != AW_UNSPEC ? s->subject : implied;
    int inner = implied_for_args(s, s->who);
    for (size_t i = 0; i < s->nargs; i++)
        resolve_in(s->args[i], inner);
}

void aw_protocol_resolve(aw_sentence *s, int speaker)
{
    resolve_in(s, speaker);
}

/* ---------------------------------------------------------------- parser */

typedef struct parser {
    const char *s;
    size_t len;
    bool lenient;
    aw_error *err;
    int failed;
} parser;

/* Records the first failure: "at byte N: ..." with N 0-based. */
static int perr(parser *P, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int perr(parser *P, size_t at, const char *fmt, ...)
{
    if (!P->failed && P->err) {
        char what[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        aw_fail(P->err, AW_EINVAL, "at byte %zu: %s", at, what);
        P->err->line = 0;
        P->err->col = (long)at + 1;
    }
    P->failed = 1;
    return -AW_EINVAL;
}

/* Java's \s without the UNICODE_CHARACTER_CLASS flag. */
static bool is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
}

/* Length of a Java line terminator starting at s[i] (for `.` and `$`), or 0:
 * \n, \r, U+0085, U+2028, U+2029 in UTF-8. */
static size_t lt_at(const char *s, size_t i, size_t e)
{
    unsigned char c = (unsigned char)s[i];
    if (c == '\n' || c == '\r')
        return 1;
    if (c == 0xC2 && i + 1 < e && (unsigned char)s[i + 1] == 0x85)
        return 2;
    if (c == 0xE2 && i + 2 < e && (unsigned char)s[i + 1] == 0x80 &&
        ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9))
        return 3;
    return 0;
}

static bool upper(unsigned char c)
{
    return c >= 'A' && c <= 'Z';
}

static bool letter(parser *P, unsigned char c)
{
    return upper(c) || (P->lenient && c >= 'a' && c <= 'z');
}

static char up(char c)
{
    return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

/* Does s[i..i+n) spell word (exactly, or ignoring case when lenient)? */
static bool word_is(parser *P, size_t i, size_t n, const char *word)
{
    if (strlen(word) != n)
        return false;
    for (size_t k = 0; k < n; k++) {
        char c = P->s[i + k];
        if (P->lenient ? up(c) != up(word[k]) : c != word[k])
            return false;
    }
    return true;
}

/* Does s[i..e) start with lit? */
static bool lit_at(parser *P, size_t i, size_t e, const char *lit)
{
    size_t n = strlen(lit);
    return e - i >= n && word_is(P, i, n, lit);
}

/* `\d+` at *pos, converted as Java's Integer.parseInt would (which throws
 * above 2^31-1). Returns 1 and advances, 0 if no digit, -1 if too large. */
static int digits(parser *P, size_t *pos, size_t e, int *out)
{
    size_t i = *pos;
    long long v = 0;
    bool big = false;
    while (i < e && P->s[i] >= '0' && P->s[i] <= '9') {
        if (!big) {
            v = v * 10 + (P->s[i] - '0');
            if (v > INT_MAX)
                big = true;
        }
        i++;
    }
    if (i == *pos)
        return 0;
    *pos = i;
    *out = (int)(big ? 0 : v);
    return big ? -1 : 1;
}

static size_t skip_ws(parser *P, size_t i, size_t e)
{
    while (i < e && is_ws((unsigned char)P->s[i]))
        i++;
    return i;
}

/* `\s+` */
static int need_ws(parser *P, size_t *pos, size_t e, const char *after)
{
    size_t i = skip_ws(P, *pos, e);
    if (i == *pos)
        return perr(P, *pos, "expected a space after %s", after);
    *pos = i;
    return 0;
}

/* An agent: Agent[NN] or ANY (lenient: also Agent3, any case). Returns 1 if
 * one was read, 0 if none is there, negative on a bad number. */
static int agent(parser *P, size_t *pos, size_t e, int *out)
{
    size_t i = *pos;
    if (lit_at(P, i, e, "ANY")) {
        /* "ANYVOTE" is a subject and a verb to the official regex, so ANY
         * may run straight into letters; callers check what follows. */
        *out = AW_ANY;
        *pos = i + 3;
        return 1;
    }
    if (!lit_at(P, i, e, "Agent"))
        return 0;
    i += 5;
    bool bracket = i < e && P->s[i] == '[';
    if (!bracket && !P->lenient)
        return 0;
    if (bracket)
        i++;
    size_t dstart = i;
    int r = digits(P, &i, e, out);
    if (r == 0)
        return 0;
    if (bracket) {
        if (i >= e || P->s[i] != ']')
            return 0;
        i++;
    }
    if (r < 0)
        return perr(P, dstart, "agent number above 2147483647");
    *pos = i;
    return 1;
}

/* An upper-case word (`\p{Upper}+`; lenient: letters). */
static size_t upper_word(parser *P, size_t i, size_t e)
{
    size_t j = i;
    while (j < e && letter(P, (unsigned char)P->s[j]))
        j++;
    return j - i;
}

static int parse_node(parser *P, size_t b, size_t e, int depth, aw_sentence **out);

/* The operands: s[b..e) is `\(.*\)` (checked by the caller); cut it into
 * top-level balanced groups the way the official library does and parse
 * each. Unbalanced parentheses simply yield fewer groups. */
static int parse_groups(parser *P, aw_sentence *node, size_t b, size_t e, int depth)
{
    long level = 0;
    size_t start = b;
    for (size_t i = b; i < e; i++) {
        char c = P->s[i];
        if (c == '(') {
            if (level == 0)
                start = i;
            level++;
        } else if (c == ')') {
            level--;
            if (level == 0) {
                aw_sentence *arg = NULL;
                int rc = parse_node(P, start + 1, i, depth + 1, &arg);
                if (rc < 0)
                    return rc;
                aw_sentence_add(node, arg);
            }
        }
    }
    return 0;
}

/* `\s+(\(.*\))$` after an operator: s[pos] must be '(' and s[end-1] ')',
 * with no line terminator in between. */
static int operands(parser *P, aw_sentence *node, size_t pos, size_t end, int depth)
{
    if (pos >= end || P->s[pos] != '(')
        return perr(P, pos, "expected '(' opening the operands of %s", aw_verb_name(node->verb));
    if (end - pos < 2 || P->s[end - 1] != ')')
        return perr(P, end, "expected ')' at the end of the operands of %s", aw_verb_name(node->verb));
    for (size_t i = pos; i < end; i++)
        if (lt_at(P->s, i, P->len))
            return perr(P, i, "line break inside a sentence");
    /* depth counts from 0 at the top: operands live one level deeper. */
    if (depth + 1 >= AW_PROTOCOL_MAX_DEPTH)
        return perr(P, pos, "operators nested deeper than %d", AW_PROTOCOL_MAX_DEPTH);
    int rc = parse_groups(P, node, pos, end, depth);
    if (rc < 0)
        return rc;
    size_t min, max;
    aw_verb_arity(node->verb, &min, &max);
    if (node->nargs < min)
        return perr(P, pos, "%s needs %zu parenthesised sentence%s, found %zu", aw_verb_name(node->verb), min,
                    min == 1 ? "" : "s", node->nargs);
    /* The official library reads only the first operand(s) and drops the
     * rest (after checking them), so we do too. */
    while (max && node->nargs > max)
        aw_sentence_free(node->args[--node->nargs]);
    return 0;
}

static int parse_node(parser *P, size_t b, size_t e, int depth, aw_sentence **out)
{
    *out = NULL;
    /* String.trim(): every byte up to ' ' goes at both ends. */
    while (b < e && (unsigned char)P->s[b] <= ' ')
        b++;
    while (e > b && (unsigned char)P->s[e - 1] <= ' ')
        e--;
    if (b == e)
        return perr(P, b, "expected a sentence");

    size_t n = e - b;
    if (word_is(P, b, n, "Skip") || (P->lenient && word_is(P, b, n, seed_skip))) {
        *out = aw_sentence_new(AW_V_SKIP);
        return 0;
    }
    if (word_is(P, b, n, "Over") || (P->lenient && word_is(P, b, n, seed_over))) {
        *out = aw_sentence_new(AW_V_OVER);
        return 0;
    }

    if (!P->lenient) {
        parser L = *P;
        L.lenient = true;
        if (word_is(&L, b, n, "Over") || word_is(&L, b, n, "Skip"))
            return perr(P, b, "expected 'Over' or 'Skip' spelled exactly so (other spellings only in lenient mode)");
    }

    /* `$` also matches just before one final line terminator. */
    size_t end = e;
    for (size_t k = 1; k <= 3 && k <= n; k++)
        if (lt_at(P->s, e - k, e) == k) {
            end = e - k;
            break;
        }

    aw_sentence *node = aw_sentence_new(AW_V_SKIP);
    size_t pos = b;
    int rc = agent(P, &pos, end, &node->subject);
    if (rc < 0)
        goto fail;
    pos = skip_ws(P, pos, end);

    size_t vstart = pos, vlen = upper_word(P, pos, end);
    int verb = -1;
    for (int v = 0; v < AW_V_COUNT && vlen; v++) {
        if (v == AW_V_OVER || v == AW_V_SKIP)
            continue;
        if (word_is(P, vstart, vlen, verb_names[v])) {
            verb = v;
            break;
        }
    }
    if (verb < 0) {
        rc = perr(P, vstart, "expected a verb or operator (VOTE, ESTIMATE, REQUEST, ...)");
        goto fail;
    }
    node->verb = (aw_verb)verb;
    pos += vlen;
    if ((rc = need_ws(P, &pos, end, verb_names[verb])) < 0)
        goto fail;

    unsigned flags = aw_verb_flags(node->verb);
    if (flags & AW_HAS_TALK) {
        size_t w = upper_word(P, pos, end);
        if (word_is(P, pos, w, "TALK"))
            node->talk_type = AW_TALK;
        else if (word_is(P, pos, w, "WHISPER"))
            node->talk_type = AW_WHISPER;
        else {
            rc = perr(P, pos, "expected TALK or WHISPER");
            goto fail;
        }
        pos += w;
        if ((rc = need_ws(P, &pos, end, "TALK")) < 0)
            goto fail;
        if (!lit_at(P, pos, end, "day")) {
            rc = perr(P, pos, "expected day<N>");
            goto fail;
        }
        pos += 3;
        size_t at = pos;
        int r = digits(P, &pos, end, &node->talk_day);
        if (r <= 0) {
            rc = perr(P, at, r ? "day number above 2147483647" : "expected the day number after 'day'");
            goto fail;
        }
        if ((rc = need_ws(P, &pos, end, "the day")) < 0)
            goto fail;
        if (!lit_at(P, pos, end, "ID:")) {
            rc = perr(P, pos, "expected ID:<N>");
            goto fail;
        }
        pos += 3;
        at = pos;
        r = digits(P, &pos, end, &node->talk_id);
        if (r <= 0) {
            rc = perr(P, at, r ? "talk ID above 2147483647" : "expected the talk number after 'ID:'");
            goto fail;
        }
    } else if (node->verb == AW_V_DAY) {
        size_t at = pos;
        int r = digits(P, &pos, end, &node->day);
        if (r <= 0) {
            rc = perr(P, at, r ? "day number above 2147483647" : "expected the day number after DAY");
            goto fail;
        }
        if ((rc = need_ws(P, &pos, end, "the day number")) < 0)
            goto fail;
        if ((rc = operands(P, node, pos, end, depth)) < 0)
            goto fail;
        pos = end;
    } else if (flags & AW_HAS_ARGS) {
        bool v2 = node->verb == AW_V_REQUEST && pos < end && P->s[pos] == '(';
        if ((flags & AW_HAS_TARGET) && !v2) {
            size_t at = pos;
            rc = agent(P, &pos, end, &node->target);
            if (rc <= 0) {
                rc = perr(P, at, "expected the agent %s addresses (Agent[NN] or ANY)", verb_names[verb]);
                goto fail;
            }
            if ((rc = need_ws(P, &pos, end, "the agent")) < 0)
                goto fail;
        }
        if ((rc = operands(P, node, pos, end, depth)) < 0)
            goto fail;
        if (v2) /* protocol 2 form "REQUEST (Agent[02] VOTE ...)": the target is the inner subject */
            node->target = node->args[0]->subject != AW_UNSPEC ? node->args[0]->subject : AW_ANY;
        pos = end;
    } else {
        size_t at = pos;
        rc = agent(P, &pos, end, &node->target);
        if (rc <= 0) {
            rc = perr(P, at, "expected an agent (Agent[NN] or ANY)");
            goto fail;
        }
        if (flags & (AW_HAS_ROLE | AW_HAS_SPECIES)) {
            if ((rc = need_ws(P, &pos, end, "the agent")) < 0)
                goto fail;
            size_t w = upper_word(P, pos, end);
            bool found = false;
            if (flags & AW_HAS_ROLE) {
                for (int k = AW_ROLE_ANY; k < AW_NROLES && !found; k++)
                    if (k != AW_ROLE_NONE && w && word_is(P, pos, w, aw_protocol_role_name((aw_role)k))) {
                        node->role = (aw_role)k;
                        found = true;
                    }
                if (!found) {
                    rc = perr(P, pos, "expected a role (VILLAGER, SEER, MEDIUM, BODYGUARD, WEREWOLF, POSSESSED, ANY)");
                    goto fail;
                }
            } else {
                if (w && word_is(P, pos, w, "HUMAN"))
                    node->species = AW_HUMAN;
                else if (w && word_is(P, pos, w, "WEREWOLF"))
                    node->species = AW_WOLF;
                else if (w && word_is(P, pos, w, "ANY"))
                    node->species = AW_SPECIES_ANY;
                else {
                    rc = perr(P, pos, "expected a species (HUMAN, WEREWOLF, ANY)");
                    goto fail;
                }
            }
            pos += w;
        }
    }
    if (pos != end) {
        size_t at = skip_ws(P, pos, end);
        rc = perr(P, at < end ? at : pos, "unexpected text after the sentence");
        goto fail;
    }
    *out = node;
    return 0;
fail:
    aw_sentence_free(node);
    return rc < 0 ? rc : -AW_EINVAL;
}

aw_sentence *aw_protocol_parse(const char *text, size_t len, aw_validation mode, aw_error *err)
{
    parser P = {text, len, mode != AW_VALIDATE_STRICT, err, 0};
    if (!text) {
        perr(&P, 0, "no text");
        return NULL;
    }
    aw_sentence *s = NULL;
    if (parse_node(&P, 0, len, 0, &s) < 0)
        return NULL;
    aw_sentence_normalize(s);
    return s;
}

int aw_protocol_validate(const char *text, size_t len, aw_validation mode, aw_error *err)
{
    if (mode == AW_VALIDATE_OFF) {
        parser P = {text, len, true, err, 0};
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)text[i];
            if (c < 0x20 || c == 0x7F)
                return perr(&P, i, "control byte 0x%02X", c);
        }
        return 0;
    }
    aw_sentence *s = aw_protocol_parse(text, len, mode, err);
    if (!s)
        return -AW_EINVAL;
    aw_sentence_free(s);
    return 0;
}

/* --------------------------------------------------------------- printer */

static void print_agent(aw_buf *out, int a, bool seed)
{
    if (a == AW_ANY)
        aw_buf_adds(out, "ANY");
    else if (seed)
        aw_buf_printf(out, "Agent%d", a);
    else
        aw_buf_printf(out, "Agent[%02d]", a);
}

static void print_in(const aw_sentence *s, int implied, bool seed, aw_buf *out)
{
    if (s->verb == AW_V_OVER || s->verb == AW_V_SKIP) {
        aw_buf_adds(out, seed ? (s->verb == AW_V_OVER ? seed_over : seed_skip) : verb_names[s->verb]);
        return;
    }
    if (s->subject != AW_UNSPEC && s->subject != implied) {
        print_agent(out, s->subject, seed);
        aw_buf_addc(out, ' ');
    }
    int resolved = s->subject != AW_UNSPEC ? s->subject : implied;
    aw_buf_adds(out, aw_verb_name(s->verb));
    unsigned f = aw_verb_flags(s->verb);
    if (f & AW_HAS_TALK) {
        aw_buf_printf(out, " %s day%d ID:%d", s->talk_type == AW_WHISPER ? "WHISPER" : "TALK", s->talk_day,
                      s->talk_id);
        return;
    }
    if (f & AW_HAS_TARGET) {
        aw_buf_addc(out, ' ');
        print_agent(out, s->target, seed);
    }
    if (f & AW_HAS_ROLE)
        aw_buf_printf(out, " %s", aw_protocol_role_name(s->role));
    if (f & AW_HAS_SPECIES)
        aw_buf_printf(out, " %s", aw_protocol_species_name(s->species));
    if (f & AW_HAS_DAY)
        aw_buf_printf(out, " %d", s->day);
    if (f & AW_HAS_ARGS) {
        int inner = implied_for_args(s, resolved);
        /* AND/OR join their operands with spaces after one space, so an
         * empty AND prints as "AND " like the official library. */
        if (s->nargs == 0)
            aw_buf_addc(out, ' ');
        for (size_t i = 0; i < s->nargs; i++) {
            aw_buf_adds(out, " (");
            print_in(s->args[i], inner, seed, out);
            aw_buf_addc(out, ')');
        }
    }
}

void aw_protocol_print(const aw_sentence *s, aw_buf *out)
{
    print_in(s, AW_UNSPEC, false, out);
}

void aw_protocol_print_seed(const aw_sentence *s, aw_buf *out)
{
    print_in(s, AW_UNSPEC, true, out);
}

char *aw_protocol_to_string(const aw_sentence *s)
{
    aw_buf b;
    aw_buf_init(&b);
    aw_protocol_print(s, &b);
    return b.data;
}

/* ------------------------------------------------------------ ANY expansion */

static const aw_role spec_roles[] = {AW_VILLAGER, AW_SEER, AW_MEDIUM, AW_BODYGUARD, AW_WEREWOLF, AW_POSSESSED};

typedef struct expander {
    const int *alive;
    size_t nalive;
    size_t nodes, max_nodes;
    aw_error *err;
} expander;

static aw_sentence *expand_in(expander *X, const aw_sentence *s);

/* Builds the node s with the given concrete values and expanded operands. */
static aw_sentence *expand_one(expander *X, const aw_sentence *s, int subject, int target, aw_role role,
                               aw_species species)
{
    aw_sentence *c = aw_sentence_new(s->verb);
    *c = *s;
    c->args = NULL;
    c->nargs = 0;
    c->subject = subject;
    c->target = target;
    c->role = role;
    c->species = species;
    X->nodes++;
    for (size_t i = 0; i < s->nargs; i++) {
        aw_sentence *a = expand_in(X, s->args[i]);
        if (!a) {
            aw_sentence_free(c);
            return NULL;
        }
        aw_sentence_add(c, a);
    }
    if (X->nodes > X->max_nodes) {
        aw_sentence_free(c);
        aw_fail(X->err, AW_EINVAL, "ANY expansion exceeds %zu sentences", X->max_nodes);
        return NULL;
    }
    return c;
}

static aw_sentence *expand_in(expander *X, const aw_sentence *s)
{
    unsigned f = aw_verb_flags(s->verb);
    size_t ns = 1, nt = 1, nr = 1, nsp = 1;
    bool any_s = s->subject == AW_ANY, any_t = (f & AW_HAS_TARGET) && s->target == AW_ANY;
    bool any_r = (f & AW_HAS_ROLE) && s->role == AW_ROLE_ANY;
    bool any_sp = (f & AW_HAS_SPECIES) && s->species == AW_SPECIES_ANY;
    if (any_s)
        ns = X->nalive;
    if (any_t)
        nt = X->nalive;
    if (any_r)
        nr = sizeof spec_roles / sizeof spec_roles[0];
    if (any_sp)
        nsp = 2;
    size_t total = ns * nt * nr * nsp;
    if (total == 0) {
        aw_fail(X->err, AW_EINVAL, "ANY cannot be expanded: no living agents");
        return NULL;
    }
    if (total > X->max_nodes) {
        aw_fail(X->err, AW_EINVAL, "ANY expansion exceeds %zu sentences", X->max_nodes);
        return NULL;
    }
    aw_sentence *or = total > 1 ? aw_sentence_new(AW_V_OR) : NULL;
    if (or)
        or->subject = AW_UNSPEC;
    for (size_t a = 0; a < ns; a++)
        for (size_t b = 0; b < nt; b++)
            for (size_t c = 0; c < nr; c++)
                for (size_t d = 0; d < nsp; d++) {
                    aw_sentence *one = expand_one(X, s, any_s ? X->alive[a] : s->subject,
                                                  any_t ? X->alive[b] : s->target,
                                                  any_r ? spec_roles[c] : s->role,
                                                  any_sp ? (d ? AW_WOLF : AW_HUMAN) : s->species);
                    if (!one) {
                        aw_sentence_free(or);
                        return NULL;
                    }
                    if (!or)
                        return one;
                    aw_sentence_add(or, one);
                }
    X->nodes++;
    return or;
}

aw_sentence *aw_protocol_expand_any(const aw_sentence *s, const int *alive, size_t nalive, size_t max_nodes,
                                    aw_error *err)
{
    expander X = {alive, nalive, 0, max_nodes ? max_nodes : 100000, err};
    return expand_in(&X, s);
}

/* ------------------------------------------------------------ game checks */

static int check_agent(int a, const aw_protocol_game *g, const char *what, aw_error *err)
{
    if (a == AW_ANY || a == AW_UNSPEC)
        return 0;
    if (a < 1 || a > g->players)
        return aw_fail(err, AW_EINVAL, "%s Agent[%02d] is not in this game (agents 1..%d)", what, a, g->players);
    return 0;
}

int aw_protocol_check_game(const aw_sentence *s, const aw_protocol_game *g, aw_error *err)
{
    int rc;
    if ((rc = check_agent(s->subject, g, "subject", err)) < 0)
        return rc;
    unsigned f = aw_verb_flags(s->verb);
    if ((f & AW_HAS_TARGET) && (rc = check_agent(s->target, g, "target", err)) < 0)
        return rc;
    if ((f & AW_HAS_DAY) && s->day > g->today)
        return aw_fail(err, AW_EINVAL, "DAY %d is in the future (today is day %d)", s->day, g->today);
    if (f & AW_HAS_TALK) {
        bool wh = s->talk_type == AW_WHISPER;
        const int *per_day = wh ? g->whispers_per_day : g->talks_per_day;
        if (s->talk_day > g->today)
            return aw_fail(err, AW_EINVAL, "%s day%d ID:%d is in the future (today is day %d)",
                           wh ? "WHISPER" : "TALK", s->talk_day, s->talk_id, g->today);
        if (!per_day || s->talk_id >= per_day[s->talk_day])
            return aw_fail(err, AW_EINVAL, "there is no %s day%d ID:%d", wh ? "WHISPER" : "TALK", s->talk_day,
                           s->talk_id);
    }
    for (size_t i = 0; i < s->nargs; i++)
        if ((rc = aw_protocol_check_game(s->args[i], g, err)) < 0)
            return rc;
    return 0;
}

/* -------------------------------------------------------------- describe */

typedef struct lang_words {
    const char *any, *speaker, *someone;
    bool ja; /* the role's phrase in Japanese (roles.def) */
    const char *role_any, *human, *wolf, *species_any;
} lang_words;

static const lang_words en = {
    "anyone", "the speaker", "someone",
    false,
    "some role", "human", "a werewolf", "human or werewolf",
};
static const lang_words ja = {
    "誰か", "発話者", "誰か",
    true,
    "何らかの役職", "人間", "人狼", "人間か人狼",
};

static void d_agent(aw_buf *o, const lang_words *w, int a)
{
    if (a == AW_ANY)
        aw_buf_adds(o, w->any);
    else if (a == AW_UNSPEC)
        aw_buf_adds(o, w->speaker);
    else
        aw_buf_printf(o, "Agent[%02d]", a);
}

static const char *d_role(const lang_words *w, aw_role r)
{
    const aw_role_info *i = aw_role_info_of(r);
    return r == AW_ROLE_ANY ? w->role_any : w->ja ? i->ja : i->en;
}

static const char *d_species(const lang_words *w, aw_species s)
{
    return s == AW_SPECIES_ANY ? w->species_any : s == AW_WOLF ? w->wolf : w->human;
}

static void describe_in(const aw_sentence *s, const lang_words *w, bool jp, aw_buf *o)
{
    int who = s->who;
    if (!jp) {
        switch (s->verb) {
        case AW_V_OVER: d_agent(o, w, who); aw_buf_adds(o, " has nothing more to say"); return;
        case AW_V_SKIP: d_agent(o, w, who); aw_buf_adds(o, " skips this turn"); return;
        case AW_V_NOT: aw_buf_adds(o, "it is not true that "); describe_in(s->args[0], w, jp, o); return;
        case AW_V_DAY: aw_buf_printf(o, "on day %d, ", s->day); describe_in(s->args[0], w, jp, o); return;
        case AW_V_BECAUSE:
            describe_in(s->args[1], w, jp, o);
            aw_buf_adds(o, ", because ");
            describe_in(s->args[0], w, jp, o);
            return;
        case AW_V_AND:
        case AW_V_OR:
        case AW_V_XOR:
            if (s->verb == AW_V_XOR)
                aw_buf_adds(o, "either ");
            for (size_t i = 0; i < s->nargs; i++) {
                if (i)
                    aw_buf_adds(o, s->verb == AW_V_AND ? ", and " : ", or ");
                describe_in(s->args[i], w, jp, o);
            }
            if (!s->nargs)
                aw_buf_adds(o, "(nothing)");
            return;
        default:
            break;
        }
        d_agent(o, w, who);
        switch (s->verb) {
        case AW_V_ESTIMATE: aw_buf_adds(o, " thinks "); break;
        case AW_V_COMINGOUT: aw_buf_adds(o, " comes out: "); break;
        case AW_V_DIVINED:
        case AW_V_IDENTIFIED: aw_buf_adds(o, " says "); break;
        case AW_V_DIVINATION: aw_buf_adds(o, " will divine "); break;
        case AW_V_GUARD: aw_buf_adds(o, " will guard "); break;
        case AW_V_VOTE: aw_buf_adds(o, " will vote for "); break;
        case AW_V_ATTACK: aw_buf_adds(o, " will attack "); break;
        case AW_V_GUARDED: aw_buf_adds(o, " guarded "); break;
        case AW_V_VOTED: aw_buf_adds(o, " voted for "); break;
        case AW_V_ATTACKED: aw_buf_adds(o, " attacked "); break;
        case AW_V_AGREE:
        case AW_V_DISAGREE:
            aw_buf_printf(o, " %s with %s %d of day %d", s->verb == AW_V_AGREE ? "agrees" : "disagrees",
                          s->talk_type == AW_WHISPER ? "whisper" : "talk", s->talk_id, s->talk_day);
            return;
        case AW_V_REQUEST:
        case AW_V_INQUIRE:
            aw_buf_adds(o, " asks ");
            d_agent(o, w, s->target);
            aw_buf_adds(o, s->verb == AW_V_REQUEST ? " to act so that: " : " whether: ");
            describe_in(s->args[0], w, jp, o);
            return;
        default: break;
        }
        d_agent(o, w, s->target);
        if (s->verb == AW_V_ESTIMATE || s->verb == AW_V_COMINGOUT)
            aw_buf_printf(o, " is %s", d_role(w, s->role));
        else if (s->verb == AW_V_DIVINED || s->verb == AW_V_IDENTIFIED)
            aw_buf_printf(o, " is %s (%s)", d_species(w, s->species),
                          s->verb == AW_V_DIVINED ? "divined" : "identified");
        return;
    }
    /* Japanese: subject は … */
    switch (s->verb) {
    case AW_V_OVER: d_agent(o, w, who); aw_buf_adds(o, "はもう話すことがない"); return;
    case AW_V_SKIP: d_agent(o, w, who); aw_buf_adds(o, "は様子を見る"); return;
    case AW_V_NOT: aw_buf_adds(o, "「"); describe_in(s->args[0], w, jp, o); aw_buf_adds(o, "」ではない"); return;
    case AW_V_DAY: aw_buf_printf(o, "%d日目に", s->day); describe_in(s->args[0], w, jp, o); return;
    case AW_V_BECAUSE:
        aw_buf_adds(o, "「");
        describe_in(s->args[0], w, jp, o);
        aw_buf_adds(o, "」ので「");
        describe_in(s->args[1], w, jp, o);
        aw_buf_adds(o, "」");
        return;
    case AW_V_AND:
    case AW_V_OR:
    case AW_V_XOR:
        for (size_t i = 0; i < s->nargs; i++) {
            if (i)
                aw_buf_adds(o, s->verb == AW_V_AND ? "、かつ" : s->verb == AW_V_OR ? "、または" : "、またはどちらか一方だけ");
            aw_buf_adds(o, "「");
            describe_in(s->args[i], w, jp, o);
            aw_buf_adds(o, "」");
        }
        return;
    default:
        break;
    }
    d_agent(o, w, who);
    aw_buf_adds(o, "は");
    switch (s->verb) {
    case AW_V_ESTIMATE: d_agent(o, w, s->target); aw_buf_printf(o, "が%sだと思う", d_role(w, s->role)); return;
    case AW_V_COMINGOUT: d_agent(o, w, s->target); aw_buf_printf(o, "が%sだとカミングアウトする", d_role(w, s->role)); return;
    case AW_V_DIVINED: d_agent(o, w, s->target); aw_buf_printf(o, "を占って%sだった", d_species(w, s->species)); return;
    case AW_V_IDENTIFIED: d_agent(o, w, s->target); aw_buf_printf(o, "を霊媒して%sだった", d_species(w, s->species)); return;
    case AW_V_DIVINATION: d_agent(o, w, s->target); aw_buf_adds(o, "を占う"); return;
    case AW_V_GUARD: d_agent(o, w, s->target); aw_buf_adds(o, "を護衛する"); return;
    case AW_V_VOTE: d_agent(o, w, s->target); aw_buf_adds(o, "に投票する"); return;
    case AW_V_ATTACK: d_agent(o, w, s->target); aw_buf_adds(o, "を襲撃する"); return;
    case AW_V_GUARDED: d_agent(o, w, s->target); aw_buf_adds(o, "を護衛した"); return;
    case AW_V_VOTED: d_agent(o, w, s->target); aw_buf_adds(o, "に投票した"); return;
    case AW_V_ATTACKED: d_agent(o, w, s->target); aw_buf_adds(o, "を襲撃した"); return;
    case AW_V_AGREE:
    case AW_V_DISAGREE:
        aw_buf_printf(o, "%d日目の%s%d番に%s", s->talk_day, s->talk_type == AW_WHISPER ? "囁き" : "発言", s->talk_id,
                      s->verb == AW_V_AGREE ? "同意する" : "反対する");
        return;
    case AW_V_REQUEST:
    case AW_V_INQUIRE:
        d_agent(o, w, s->target);
        aw_buf_adds(o, "に「");
        describe_in(s->args[0], w, jp, o);
        aw_buf_adds(o, s->verb == AW_V_REQUEST ? "」ことを求める" : "」かを尋ねる");
        return;
    default:
        return;
    }
}

void aw_protocol_describe(const aw_sentence *s, int speaker, const char *lang, aw_buf *out)
{
    bool jp = lang && strcmp(lang, "ja") == 0;
    aw_sentence *c = aw_sentence_copy(s);
    aw_protocol_resolve(c, speaker);
    describe_in(c, jp ? &ja : &en, jp, out);
    aw_sentence_free(c);
}
