/* test_protocol_unit: the protocol module's API beyond the fixtures —
 * round trips over random trees, hostile input (truncations, NULs, invalid
 * UTF-8, megabyte lines, deep nesting), the official regex corner cases,
 * error offsets, game-level checks, ANY expansion limits, and a
 * deterministic random-mutation loop standing in for the fuzzer when clang
 * is absent. Uses protocol. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "test.h"

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static int valid(const char *t, aw_validation m)
{
    return aw_protocol_validate(t, strlen(t), m, NULL) == 0;
}

static char *canon(const char *t, aw_validation m)
{
    aw_sentence *s = aw_protocol_parse(t, strlen(t), m, NULL);
    if (!s)
        return NULL;
    char *r = aw_protocol_to_string(s);
    aw_sentence_free(s);
    return r;
}

static void check_canon(const char *in, const char *expected)
{
    char *c = canon(in, AW_VALIDATE_STRICT);
    CHECK_STR(c, expected);
    free(c);
}

static int agent(void)
{
    return rnd(5) == 0 ? AW_ANY : (int)rnd(20) + 1;
}

static aw_sentence *gen(int depth)
{
    static const aw_role roles[] = {AW_VILLAGER, AW_SEER,   AW_MEDIUM, AW_BODYGUARD, AW_WEREWOLF,
                                    AW_POSSESSED, AW_FREEMASON, AW_FOX,  AW_ROLE_ANY};
    aw_verb v;
    if (depth <= 0 || rnd(3) == 0)
        v = (aw_verb)rnd(AW_V_SKIP + 1);
    else
        v = (aw_verb)(AW_V_REQUEST + rnd(AW_V_COUNT - AW_V_REQUEST));
    aw_sentence *s = aw_sentence_new(v);
    unsigned f = aw_verb_flags(v);
    if (v != AW_V_OVER && v != AW_V_SKIP && rnd(3) == 0)
        s->subject = agent();
    if (f & AW_HAS_TARGET)
        s->target = agent();
    if (f & AW_HAS_ROLE)
        s->role = roles[rnd(sizeof roles / sizeof roles[0])];
    if (f & AW_HAS_SPECIES)
        s->species = rnd(3) == 0 ? AW_SPECIES_ANY : (aw_species)rnd(2);
    if (f & AW_HAS_TALK) {
        s->talk_type = (aw_talk_type)rnd(2);
        s->talk_day = (int)rnd(15);
        s->talk_id = rnd(10) == 0 ? 2147483647 : (int)rnd(100);
    }
    if (f & AW_HAS_DAY)
        s->day = (int)rnd(15);
    if (f & AW_HAS_ARGS) {
        size_t min, max;
        aw_verb_arity(v, &min, &max);
        size_t n = max ? max : 1 + rnd(4);
        for (size_t i = 0; i < n; i++)
            aw_sentence_add(s, gen(depth - 1));
    }
    return s;
}

static void round_trips(void)
{
    for (int i = 0; i < 3000; i++) {
        aw_sentence *s = gen(5);
        aw_sentence_normalize(s);
        char *t = aw_protocol_to_string(s);
        aw_error err = {0};
        aw_sentence *p = aw_protocol_parse(t, strlen(t), AW_VALIDATE_STRICT, &err);
        CHECK_MSG(p != NULL, "'%s': %s", t, err.msg);
        if (p) {
            CHECK_MSG(aw_sentence_equal(s, p), "'%s' parses to a different tree", t);
            char *t2 = aw_protocol_to_string(p);
            CHECK_STR(t2, t);
            free(t2);
            aw_sentence *c = aw_sentence_copy(p);
            CHECK(aw_sentence_equal(c, p));
            aw_sentence_free(c);
        }
        aw_buf b;
        aw_buf_init(&b);
        aw_protocol_print_seed(s, &b);
        aw_sentence *q = aw_protocol_parse(b.data, b.len, AW_VALIDATE_LENIENT, NULL);
        CHECK_MSG(q && aw_sentence_equal(s, q), "seed text '%s' does not parse back", b.data);
        aw_sentence_free(q);
        aw_buf_free(&b);
        aw_sentence_free(p);
        free(t);
        aw_sentence_free(s);
    }
}

static void corner_cases(void)
{
    /* Java regex details the official validator inherits. */
    CHECK(valid("VOTE Agent[01]\xE2\x80\xA8", AW_VALIDATE_STRICT));      /* `$` before a final U+2028 */
    CHECK(valid("VOTE Agent[01]\xC2\x85", AW_VALIDATE_STRICT));          /* ... or U+0085 */
    CHECK(!valid("VOTE Agent[01]\xE2\x80\xA8\xE2\x80\xA8", AW_VALIDATE_STRICT));
    CHECK(!valid("AND (VOTE Agent[01])\n(VOTE Agent[02])", AW_VALIDATE_STRICT)); /* `.` stops at \n */
    CHECK(valid("AND (VOTE Agent[01])\t(VOTE Agent[02])", AW_VALIDATE_STRICT));
    CHECK(valid("\x01\x02 VOTE Agent[01] \x1f", AW_VALIDATE_STRICT)); /* trim() drops bytes <= ' ' */
    CHECK(valid("VOTE Agent[2147483647]", AW_VALIDATE_STRICT));
    CHECK(!valid("VOTE Agent[2147483648]", AW_VALIDATE_STRICT));
    CHECK(!valid("DAY 99999999999 (VOTE Agent[01])", AW_VALIDATE_STRICT));
    CHECK(valid("AND ((VOTE Agent[01])", AW_VALIDATE_STRICT));           /* official oddity: no operand */
    CHECK(valid("AND (VOTE Agent[01]) junk (VOTE Agent[02])", AW_VALIDATE_STRICT));
    CHECK(valid("REQUEST ANY (VOTE Agent[01]) (VOTE Agent[02])", AW_VALIDATE_STRICT));
    CHECK(!valid("NOT ((VOTE Agent[01])", AW_VALIDATE_STRICT));          /* official: throws */
    CHECK(!valid("XOR (VOTE Agent[01])", AW_VALIDATE_STRICT));
    CHECK(!valid("NOT (VOTE Agent[01]) (junk)", AW_VALIDATE_STRICT));    /* dropped operands are checked */
    check_canon("AND ((VOTE Agent[01])", "AND ");
    check_canon("NOT (VOTE Agent[01]) (VOTE Agent[02])", "NOT (VOTE Agent[01])");
    check_canon("BECAUSE (VOTE Agent[01]) (VOTE Agent[02]) (VOTE Agent[03])", "BECAUSE (VOTE Agent[01]) (VOTE Agent[02])");
    check_canon("Agent[0] VOTE Agent[00]", "ANY VOTE ANY");
    check_canon("ANYVOTE Agent[001]", "ANY VOTE Agent[01]");
    check_canon("REQUEST (Agent[04] VOTE Agent[01])", "REQUEST Agent[04] (VOTE Agent[01])");
    check_canon("Agent[01] AND (Agent[01] VOTE Agent[02]) (Agent[03] VOTE Agent[02])",
                "Agent[01] AND (VOTE Agent[02]) (Agent[03] VOTE Agent[02])");
    check_canon("INQUIRE ANY (ANY VOTE Agent[02])", "INQUIRE ANY (VOTE Agent[02])");
    check_canon("Agent[05] NOT (REQUEST Agent[02] (Agent[05] VOTE Agent[01]))",
                "Agent[05] NOT (REQUEST Agent[02] (Agent[05] VOTE Agent[01]))");
    check_canon("AGREE WHISPER day007 ID:0012", "AGREE WHISPER day7 ID:12");
    check_canon("AND (Skip) (Over)", "AND (Skip) (Over)");
    /* lenient extras */
    CHECK(valid("vote agent3", AW_VALIDATE_LENIENT));
    CHECK(valid("skip", AW_VALIDATE_LENIENT));
    CHECK(!valid("Agent[01] OVER", AW_VALIDATE_LENIENT));
    CHECK(!valid("VOTE Agent", AW_VALIDATE_LENIENT));
    /* off: anything but control bytes */
    CHECK(valid("hello world", AW_VALIDATE_OFF));
    CHECK(!valid("hello\tworld", AW_VALIDATE_OFF));
    CHECK(aw_protocol_validate("a\0b", 3, AW_VALIDATE_OFF, NULL) < 0);
}

static void error_messages(void)
{
    static const struct {
        const char *in;
        long col;
        const char *msg;
    } cases[] = {
        {"VOTE Agent[01] x", 16, "at byte 15: unexpected text after the sentence"},
        {"VOTE", 5, "at byte 4: expected a space after VOTE"},
        {"VOTE  ", 5, "at byte 4: expected a space after VOTE"},
        {"HELLO Agent[01]", 1, "at byte 0: expected a verb or operator (VOTE, ESTIMATE, REQUEST, ...)"},
        {"ESTIMATE Agent[01] KING", 20, "at byte 19: expected a role (VILLAGER, SEER, MEDIUM, BODYGUARD, WEREWOLF, POSSESSED, ANY)"},
        {"DIVINED Agent[01] SEER", 19, "at byte 18: expected a species (HUMAN, WEREWOLF, ANY)"},
        {"AGREE TALK day1 ID: 3", 20, "at byte 19: expected the talk number after 'ID:'"},
        {"AGREE TALK day1 3", 17, "at byte 16: expected ID:<N>"},
        {"VOTE Agent[99999999999]", 12, "at byte 11: agent number above 2147483647"},
        {"AND (VOTE Agent[01]) (VOTE X)", 28, "at byte 27: expected an agent (Agent[NN] or ANY)"},
        {"REQUEST Agent[01] VOTE", 19, "at byte 18: expected '(' opening the operands of REQUEST"},
        {"", 1, "at byte 0: expected a sentence"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        aw_error err = {0};
        int rc = aw_protocol_validate(cases[i].in, strlen(cases[i].in), AW_VALIDATE_STRICT, &err);
        CHECK_INT(rc, -AW_EINVAL);
        CHECK_STR(err.msg, cases[i].msg);
        CHECK_INT(err.col, cases[i].col);
    }
}

static void hostile(void)
{
    /* Every prefix of a long valid sentence: no crash, and a verdict. */
    const char *full = "Agent[01] BECAUSE (AND (COMINGOUT Agent[03] VILLAGER) (DAY 1 (Agent[01] DIVINED Agent[03] "
                       "WEREWOLF))) (XOR (ESTIMATE Agent[01] WEREWOLF) (REQUEST ANY (AGREE TALK day1 ID:3)))";
    size_t n = strlen(full);
    CHECK(valid(full, AW_VALIDATE_STRICT));
    int accepted = 0;
    for (size_t k = 0; k < n; k++) {
        aw_sentence *s = aw_protocol_parse(full, k, AW_VALIDATE_STRICT, NULL);
        accepted += s != NULL;
        aw_sentence_free(s);
    }
    CHECK_INT(accepted, 0);

    /* Nesting: 64 levels are fine, 65 are refused with a message. */
    for (int levels = 63; levels <= 66; levels++) {
        aw_buf b;
        aw_buf_init(&b);
        for (int i = 1; i < levels; i++)
            aw_buf_adds(&b, "NOT (");
        aw_buf_adds(&b, "VOTE Agent[01]");
        for (int i = 1; i < levels; i++)
            aw_buf_addc(&b, ')');
        aw_error err = {0};
        int rc = aw_protocol_validate(b.data, b.len, AW_VALIDATE_STRICT, &err);
        CHECK_MSG((rc == 0) == (levels <= AW_PROTOCOL_MAX_DEPTH), "%d levels: rc %d %s", levels, rc, err.msg);
        if (rc < 0)
            CHECK(strstr(err.msg, "nested deeper than 64") != NULL);
        aw_buf_free(&b);
    }

    /* A megabyte of '(' then ')' (deep), of "(", and of junk. */
    size_t big = 1 << 20;
    char *m = aw_xmalloc(big + 1);
    for (size_t i = 0; i < big; i++)
        m[i] = i < big / 2 ? '(' : ')';
    memcpy(m, "AND ", 4);
    CHECK(aw_protocol_validate(m, big, AW_VALIDATE_STRICT, NULL) < 0);
    memset(m, '(', big);
    CHECK(aw_protocol_validate(m, big, AW_VALIDATE_LENIENT, NULL) < 0);
    for (size_t i = 0; i < big; i++)
        m[i] = (char)rnd(256);
    CHECK(aw_protocol_validate(m, big, AW_VALIDATE_STRICT, NULL) < 0);
    /* A megabyte-long AND with 60,000 operands is valid and linear. */
    aw_buf b;
    aw_buf_init(&b);
    aw_buf_adds(&b, "AND");
    for (int i = 0; i < 60000; i++)
        aw_buf_adds(&b, " (VOTE Agent[01])");
    aw_sentence *s = aw_protocol_parse(b.data, b.len, AW_VALIDATE_STRICT, NULL);
    CHECK(s && s->nargs == 60000);
    aw_sentence_free(s);
    aw_buf_free(&b);
    free(m);

    /* NUL and invalid UTF-8 inside a sentence. */
    CHECK(aw_protocol_validate("VOTE Agent[01]\0", 15, AW_VALIDATE_STRICT, NULL) == 0); /* trailing NUL trimmed like Java */
    CHECK(aw_protocol_validate("VOTE\0Agent[01]", 14, AW_VALIDATE_STRICT, NULL) < 0);
    CHECK(!valid("VOTE Agent[01] \xff", AW_VALIDATE_STRICT));
    CHECK(!valid("AND (VOTE Agent[01]) \xff\xfe", AW_VALIDATE_STRICT));
    CHECK(valid("AND (VOTE Agent[01]) \xff\xfe (VOTE Agent[02])", AW_VALIDATE_STRICT)); /* junk between operands */
    CHECK(aw_protocol_parse(NULL, 0, AW_VALIDATE_STRICT, NULL) == NULL);
}

/* Deterministic mutation loop: what the libFuzzer target checks, without
 * clang. Invariants: strict-valid implies lenient-valid; a valid text's
 * canonical form is valid and parses to the same tree (except the official
 * empty AND/OR, printed "AND "). */
static void mutation_loop(void)
{
    static const char *const seeds[] = {
        "Agent[01] BECAUSE (DAY 1 (DIVINED Agent[03] WEREWOLF)) (AND (VOTE Agent[03]) (REQUEST ANY (VOTE Agent[03])))",
        "INQUIRE Agent[02] (XOR (ESTIMATE ANY SEER) (NOT (AGREE TALK day1 ID:3)))",
        "REQUEST (Agent[02] OR (GUARDED Agent[1]) (IDENTIFIED Agent[05] HUMAN))", "Over", "Skip",
    };
    static const char alphabet[] = "()[] \tAgent0123456789ANYVOTEREQUESTDAYNOTORXORBECAUSEOverSkipday:ID\n\xe2\x80\xa8";
    int valid_seen = 0;
    for (int it = 0; it < 30000; it++) {
        char buf[512];
        const char *seed = seeds[rnd(sizeof seeds / sizeof seeds[0])];
        size_t len = strlen(seed);
        memcpy(buf, seed, len);
        int muts = 1 + (int)rnd(4);
        for (int k = 0; k < muts; k++) {
            size_t pos = len ? rnd((uint32_t)len) : 0;
            switch (rnd(4)) {
            case 0: /* replace */
                if (len)
                    buf[pos] = alphabet[rnd(sizeof alphabet - 1)];
                break;
            case 1: /* delete */
                if (len) {
                    memmove(buf + pos, buf + pos + 1, len - pos - 1);
                    len--;
                }
                break;
            case 2: /* insert */
                if (len < sizeof buf - 1) {
                    memmove(buf + pos + 1, buf + pos, len - pos);
                    buf[pos] = alphabet[rnd(sizeof alphabet - 1)];
                    len++;
                }
                break;
            default: /* truncate */
                len = pos;
                break;
            }
        }
        aw_sentence *s = aw_protocol_parse(buf, len, AW_VALIDATE_STRICT, NULL);
        if (s) {
            valid_seen++;
            if (aw_protocol_validate(buf, len, AW_VALIDATE_LENIENT, NULL) != 0) {
                CHECK_MSG(0, "lenient rejects strict-valid '%.*s'", (int)len, buf);
            }
            char *t = aw_protocol_to_string(s);
            size_t tl = strlen(t);
            if (tl && t[tl - 1] != ' ' && !strstr(t, " )")) {
                aw_sentence *p = aw_protocol_parse(t, tl, AW_VALIDATE_STRICT, NULL);
                if (!p || !aw_sentence_equal(s, p))
                    CHECK_MSG(0, "'%.*s' -> '%s' is not stable", (int)len, buf, t);
                aw_sentence_free(p);
            }
            free(t);
            aw_sentence_free(s);
        } else {
            aw_sentence_free(aw_protocol_parse(buf, len, AW_VALIDATE_LENIENT, NULL));
        }
    }
    CHECK(valid_seen > 100);
    printf("mutation loop: %d of 30000 mutants valid\n", valid_seen);
}

static void game_checks(void)
{
    int talks[] = {0, 12, 5};
    int whispers[] = {3, 0, 0};
    aw_protocol_game g = {5, 2, talks, whispers};
    static const struct {
        const char *in;
        const char *err; /* NULL: fine */
    } cases[] = {
        {"VOTE Agent[05]", NULL},
        {"VOTE Agent[06]", "target Agent[06] is not in this game (agents 1..5)"},
        {"Agent[09] VOTE ANY", "subject Agent[09] is not in this game (agents 1..5)"},
        {"AGREE TALK day1 ID:11", NULL},
        {"AGREE TALK day1 ID:12", "there is no TALK day1 ID:12"},
        {"DISAGREE WHISPER day0 ID:2", NULL},
        {"DISAGREE WHISPER day1 ID:0", "there is no WHISPER day1 ID:0"},
        {"AGREE TALK day3 ID:0", "TALK day3 ID:0 is in the future (today is day 2)"},
        {"DAY 3 (VOTED Agent[01])", "DAY 3 is in the future (today is day 2)"},
        {"REQUEST ANY (AND (VOTE Agent[01]) (INQUIRE Agent[07] (VOTE ANY)))",
         "target Agent[07] is not in this game (agents 1..5)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        aw_sentence *s = aw_protocol_parse(cases[i].in, strlen(cases[i].in), AW_VALIDATE_STRICT, NULL);
        CHECK(s != NULL);
        if (!s)
            continue;
        aw_error err = {0};
        int rc = aw_protocol_check_game(s, &g, &err);
        if (cases[i].err) {
            CHECK_INT(rc, -AW_EINVAL);
            CHECK_STR(err.msg, cases[i].err);
        } else {
            CHECK_MSG(rc == 0, "'%s': %s", cases[i].in, err.msg);
        }
        aw_sentence_free(s);
    }
}

static void expansion_limits(void)
{
    int alive[15];
    for (int i = 0; i < 15; i++)
        alive[i] = i + 1;
    const char *t = "AND (ESTIMATE ANY ANY) (ANY COMINGOUT ANY ANY)";
    aw_sentence *s = aw_protocol_parse(t, strlen(t), AW_VALIDATE_STRICT, NULL);
    CHECK(s != NULL);
    aw_error err = {0};
    aw_sentence *x = aw_protocol_expand_any(s, alive, 15, 500, &err);
    CHECK(x == NULL);
    CHECK(strstr(err.msg, "exceeds 500") != NULL);
    x = aw_protocol_expand_any(s, alive, 15, 0, &err);
    CHECK(x != NULL);
    if (x) {
        CHECK_INT(x->nargs, 2);
        CHECK_INT(x->args[0]->nargs, 15 * 6);
        CHECK_INT(x->args[1]->nargs, 15 * 15 * 6);
    }
    aw_sentence_free(x);
    CHECK(aw_protocol_expand_any(s, alive, 0, 0, &err) == NULL);
    aw_sentence_free(s);
}

static void names(void)
{
    for (int v = 0; v < AW_V_COUNT; v++)
        CHECK_INT(aw_verb_parse(aw_verb_name((aw_verb)v)), v);
    CHECK_INT(aw_verb_parse("OVER"), -1);
    CHECK_STR(aw_protocol_role_name(AW_ROLE_ANY), "ANY");
    CHECK_STR(aw_protocol_species_name(AW_WOLF), "WEREWOLF");
    size_t lo, hi;
    aw_verb_arity(AW_V_BECAUSE, &lo, &hi);
    CHECK(lo == 2 && hi == 2);
}

int main(void)
{
    names();
    corner_cases();
    error_messages();
    round_trips();
    hostile();
    mutation_loop();
    game_checks();
    expansion_limits();
    return test_done();
}
