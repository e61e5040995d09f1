/* test_protocol_seed: every example sentence of the seed specification
 * (seeds/002, sections 5 to 5.4) parsed in lenient mode, printed in the
 * official spelling and resolved as the specification explains them.
 * Placeholders in the spec ([role], [species], [talk number]) are filled in
 * with one concrete value each. Uses protocol. */
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "test.h"

#define SPEAKER 7

typedef struct example {
    const char *seed;      /* as the spec writes it */
    const char *canonical; /* what the official library writes */
    int who[4];            /* resolved subjects, pre-order, for speaker SPEAKER; 0 ends (AW_ANY never occurs here) */
} example;

static const example examples[] = {
    /* 5. */
    {"COMINGOUT Agent1 SEER", "COMINGOUT Agent[01] SEER", {SPEAKER}},
    {"Agent1 COMINGOUT Agent1 SEER", "Agent[01] COMINGOUT Agent[01] SEER", {1}},
    {"DIVINED Agent1 HUMAN", "DIVINED Agent[01] HUMAN", {SPEAKER}},
    {"Agent1 DIVINED Agent2 WEREWOLF", "Agent[01] DIVINED Agent[02] WEREWOLF", {1}},
    {"REQUEST Agent2 (DIVINATION Agent3)", "REQUEST Agent[02] (DIVINATION Agent[03])", {SPEAKER, 2}},
    {"REQUEST Agent2 (Agent2 DIVINATION Agent3)", "REQUEST Agent[02] (DIVINATION Agent[03])", {SPEAKER, 2}},
    {"GUARD Agent2", "GUARD Agent[02]", {SPEAKER}},
    {"Agent1 REQUEST Agent2 (GUARD Agent3)", "Agent[01] REQUEST Agent[02] (GUARD Agent[03])", {1, 2}},
    /* 5.1 */
    {"REQUEST Agent1 (ESTIMATE Agent2 WEREWOLF)", "REQUEST Agent[01] (ESTIMATE Agent[02] WEREWOLF)", {SPEAKER, 1}},
    {"REQUEST Agent1 (COMINGOUT Agent2 SEER)", "REQUEST Agent[01] (COMINGOUT Agent[02] SEER)", {SPEAKER, 1}},
    {"REQUEST Agent1 (DIVINATION Agent2)", "REQUEST Agent[01] (DIVINATION Agent[02])", {SPEAKER, 1}},
    {"REQUEST Agent1 (GUARD Agent2)", "REQUEST Agent[01] (GUARD Agent[02])", {SPEAKER, 1}},
    {"REQUEST Agent1 (ATTACK Agent2)", "REQUEST Agent[01] (ATTACK Agent[02])", {SPEAKER, 1}},
    {"REQUEST Agent1 (DIVINED Agent2 HUMAN)", "REQUEST Agent[01] (DIVINED Agent[02] HUMAN)", {SPEAKER, 1}},
    {"REQUEST Agent1 (GUARDED Agent2)", "REQUEST Agent[01] (GUARDED Agent[02])", {SPEAKER, 1}},
    {"REQUEST Agent1 (AGREE TALK day1 ID:3)", "REQUEST Agent[01] (AGREE TALK day1 ID:3)", {SPEAKER, 1}},
    /* 5.2 (the spec writes the last clause in lower case) */
    {"Agent2 BECAUSE (DAY 1 (Agent1 VOTE Agent2)) (vote Agent1)",
     "Agent[02] BECAUSE (DAY 1 (Agent[01] VOTE Agent[02])) (VOTE Agent[01])", {2, 2, 1, 2}},
    /* 5.3 */
    {"Agent2 INQUIRE Agent1 (VOTED ANY)", "Agent[02] INQUIRE Agent[01] (VOTED ANY)", {2, 1}},
    {"Agent2 INQUIRE Agent1 (VOTE ANY)", "Agent[02] INQUIRE Agent[01] (VOTE ANY)", {2, 1}},
    {"Agent2 INQUIRE Agent1 (ESTIMATE Agent2 WEREWOLF)", "Agent[02] INQUIRE Agent[01] (ESTIMATE Agent[02] WEREWOLF)", {2, 1}},
};

/* 5.1 with ANY as the addressee: the inner subject resolves to ANY. */
static const char *const any_requests[][2] = {
    {"REQUEST ANY (ESTIMATE Agent1 WEREWOLF)", "REQUEST ANY (ESTIMATE Agent[01] WEREWOLF)"},
    {"REQUEST ANY (COMINGOUT Agent1 SEER)", "REQUEST ANY (COMINGOUT Agent[01] SEER)"},
    {"REQUEST ANY (DIVINATION Agent1)", "REQUEST ANY (DIVINATION Agent[01])"},
    {"REQUEST ANY (GUARD Agent1)", "REQUEST ANY (GUARD Agent[01])"},
    {"REQUEST ANY (VOTE Agent1)", "REQUEST ANY (VOTE Agent[01])"},
    {"REQUEST ANY (IDENTIFIED Agent1 WEREWOLF)", "REQUEST ANY (IDENTIFIED Agent[01] WEREWOLF)"},
    {"REQUEST ANY (DISAGREE TALK day1 ID:3)", "REQUEST ANY (DISAGREE TALK day1 ID:3)"},
};

static int collect_who(const aw_sentence *s, int *out, int n)
{
    if (n < 4)
        out[n] = s->who;
    n++;
    for (size_t i = 0; i < s->nargs; i++)
        n = collect_who(s->args[i], out, n);
    return n;
}

static void expand(const char *seed, const char *expected)
{
    static const int alive[] = {1, 2, 3};
    aw_sentence *s = aw_protocol_parse(seed, strlen(seed), AW_VALIDATE_LENIENT, NULL);
    CHECK(s != NULL);
    if (!s)
        return;
    aw_error err = {0};
    aw_sentence *x = aw_protocol_expand_any(s, alive, 3, 0, &err);
    CHECK_MSG(x != NULL, "%s", err.msg);
    if (x) {
        char *t = aw_protocol_to_string(x);
        CHECK_STR(t, expected);
        free(t);
    }
    aw_sentence_free(x);
    aw_sentence_free(s);
}

int main(void)
{
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        const example *e = &examples[i];
        aw_error err = {0};
        aw_sentence *s = aw_protocol_parse(e->seed, strlen(e->seed), AW_VALIDATE_LENIENT, &err);
        CHECK_MSG(s != NULL, "'%s': %s", e->seed, err.msg);
        if (!s)
            continue;
        char *t = aw_protocol_to_string(s);
        CHECK_STR(t, e->canonical);
        /* The canonical text is valid for the official library and gives
         * back the same tree. */
        aw_sentence *s2 = aw_protocol_parse(t, strlen(t), AW_VALIDATE_STRICT, &err);
        CHECK_MSG(s2 && aw_sentence_equal(s, s2), "'%s' does not parse back strictly", t);
        aw_sentence_free(s2);
        /* Seed spelling round trip. */
        aw_buf b;
        aw_buf_init(&b);
        aw_protocol_print_seed(s, &b);
        s2 = aw_protocol_parse(b.data, b.len, AW_VALIDATE_LENIENT, NULL);
        CHECK_MSG(s2 && aw_sentence_equal(s, s2), "seed spelling '%s' does not parse back", b.data);
        aw_sentence_free(s2);
        aw_buf_free(&b);
        /* Resolution as the spec explains. */
        aw_protocol_resolve(s, SPEAKER);
        int who[4] = {0, 0, 0, 0};
        int n = collect_who(s, who, 0);
        for (int k = 0; k < n && k < 4; k++)
            CHECK_MSG(who[k] == e->who[k], "'%s' node %d: who %d, expected %d", e->seed, k, who[k], e->who[k]);
        free(t);
        aw_sentence_free(s);
    }
    for (size_t i = 0; i < sizeof any_requests / sizeof any_requests[0]; i++) {
        const char *seed = any_requests[i][0];
        aw_sentence *s = aw_protocol_parse(seed, strlen(seed), AW_VALIDATE_LENIENT, NULL);
        CHECK(s != NULL);
        if (!s)
            continue;
        char *t = aw_protocol_to_string(s);
        CHECK_STR(t, any_requests[i][1]);
        free(t);
        aw_protocol_resolve(s, SPEAKER);
        CHECK_INT(s->who, SPEAKER);
        CHECK_INT(s->target, AW_ANY);
        CHECK_INT(s->args[0]->who, AW_ANY);
        aw_sentence_free(s);
    }
    /* The seed spellings are not official: strict mode refuses them. */
    const char *seed_only[] = {"COMINGOUT Agent1 SEER", "OVER", "SKIP",
                               "Agent2 BECAUSE (DAY 1 (Agent1 VOTE Agent2)) (vote Agent1)"};
    for (size_t i = 0; i < sizeof seed_only / sizeof seed_only[0]; i++) {
        CHECK(aw_protocol_validate(seed_only[i], strlen(seed_only[i]), AW_VALIDATE_STRICT, NULL) < 0);
        CHECK(aw_protocol_validate(seed_only[i], strlen(seed_only[i]), AW_VALIDATE_LENIENT, NULL) == 0);
    }
    /* 2.5: OVER and SKIP. */
    aw_sentence *o = aw_protocol_parse("OVER", 4, AW_VALIDATE_LENIENT, NULL);
    CHECK(o && o->verb == AW_V_OVER);
    if (o) {
        char *t = aw_protocol_to_string(o);
        CHECK_STR(t, "Over");
        free(t);
    }
    aw_sentence_free(o);
    /* 5.4: ANY expansion. */
    expand("Agent2 INQUIRE Agent1 (VOTED ANY)",
           "Agent[02] INQUIRE Agent[01] (OR (VOTED Agent[01]) (VOTED Agent[02]) (VOTED Agent[03]))");
    expand("REQUEST ANY (DIVINED Agent3 HUMAN)",
           "OR (REQUEST Agent[01] (DIVINED Agent[03] HUMAN)) (REQUEST Agent[02] (DIVINED Agent[03] HUMAN)) "
           "(REQUEST Agent[03] (DIVINED Agent[03] HUMAN))");
    expand("DIVINED Agent1 ANY", "OR (DIVINED Agent[01] HUMAN) (DIVINED Agent[01] WEREWOLF)");
    return test_done();
}
