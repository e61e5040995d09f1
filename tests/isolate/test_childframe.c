/* test_childframe: the framing's talk and whisper lists (childframe.h), with
 * no child: the host's encoder against the child's view, step by step.
 *  - lists that grow a talk or two at a time, now and then by a text longer
 *    than a block of the child's text pool, and start again each day: after
 *    each ask the child's list is the host's (fields, texts, a NUL after
 *    each text, a parsed form exactly where the host had one);
 *  - an ask that keeps only part of what the child holds (the encoder's
 *    record of the child's copy wound back): the entries past it go, the
 *    kept ones stay intact, the new ones follow;
 *  - a parsed form is freed before the text it was made from: the test's
 *    validate keeps a pointer to the text and free_parsed compares it
 *    (under AddressSanitizer, a freed or moved text would be caught).
 * Uses childframe. */
#include <stdlib.h>
#include <string.h>

#include "childframe.h"
#include "test.h"

/* A parsed form: where the text was and a copy of it. */
typedef struct form {
    const char *at;
    char *copy;
    size_t len;
} form;

static int live_forms;

static int validate(void *ud, const char *text, size_t len, aw_validation mode, void **parsed, aw_error *err)
{
    (void)ud;
    (void)mode;
    (void)err;
    form *f = malloc(sizeof *f);
    f->at = text;
    f->len = len;
    f->copy = malloc(len + 1);
    memcpy(f->copy, text, len);
    *parsed = f;
    live_forms++;
    return 0;
}

static void free_parsed(void *ud, void *parsed)
{
    (void)ud;
    form *f = parsed;
    CHECK(memcmp(f->at, f->copy, f->len) == 0); /* the text is still there */
    free(f->copy);
    free(f);
    live_forms--;
}

static uint64_t rng = 88172645463325252u;

static unsigned next(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

enum { MAX_TALKS = 400 };

typedef struct host_list {
    aw_talk t[MAX_TALKS];
    int n;
} host_list;

static int dummy_parsed;

static void add(host_list *l, int day)
{
    aw_talk *t = &l->t[l->n];
    size_t len = next(20) == 0 ? 17000 + next(40000) : next(40);
    char *text = malloc(len + 1);
    for (size_t i = 0; i < len; i++)
        text[i] = (char)('A' + next(26));
    text[len] = '\0';
    *t = (aw_talk){.day = day, .idx = l->n, .turn = l->n / 5, .agent = 1 + (int)next(15), .text = text,
                   .len = len, .parsed = next(3) ? &dummy_parsed : NULL};
    l->n++;
}

static void clear(host_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->t[i].text);
    l->n = 0;
}

static void same_list(const aw_talk *c, int nc, const host_list *h)
{
    CHECK_INT(nc, h->n);
    for (int i = 0; i < nc && i < h->n; i++) {
        const aw_talk *a = &c[i], *b = &h->t[i];
        CHECK(a->day == b->day && a->idx == b->idx && a->turn == b->turn && a->agent == b->agent);
        CHECK(a->len == b->len && memcmp(a->text, b->text, b->len) == 0 && a->text[a->len] == '\0');
        CHECK((a->parsed != NULL) == (b->parsed != NULL));
        if (a->parsed) {
            const form *f = a->parsed;
            CHECK(f->at == a->text && f->len == a->len);
        }
    }
}

static int held_forms(const aw_cf_view *v)
{
    int held = 0;
    for (int i = 0; i < v->v.ntalks; i++)
        held += v->v.talks[i].parsed != NULL;
    for (int i = 0; i < v->v.nwhispers; i++)
        held += v->v.whispers[i].parsed != NULL;
    return held;
}

/* One ask with the lists as they are; the child applies it. */
static void ask(aw_cf_sent *s, aw_cf_view *v, host_list *talks, host_list *whispers, int day)
{
    aw_settings set;
    memset(&set, 0, sizeof set);
    aw_info info;
    memset(&info, 0, sizeof info);
    info.day = day;
    info.agent = 1;
    info.talks = talks->t;
    info.ntalks = talks->n;
    info.whispers = whispers->t;
    info.nwhispers = whispers->n;
    aw_buf b;
    aw_buf_init(&b);
    aw_cf_ask_encode(s, AW_REQ_TALK, 1, &info, &set, false, 0, &b);
    aw_cf_ask_header h;
    CHECK(aw_cf_ask_header_read(b.data, &h) == 0);
    CHECK_INT((int)h.len, (int)(b.len - AW_CF_ASK_HEADER));
    aw_error err;
    CHECK_MSG(aw_cf_view_apply(v, b.data + AW_CF_ASK_HEADER, h.len, &err) == 0, "%s", err.msg);
    aw_buf_free(&b);
    same_list(v->v.talks, v->v.ntalks, talks);
    same_list(v->v.whispers, v->v.nwhispers, whispers);
}

int main(void)
{
    aw_cf_sent s;
    aw_cf_sent_reset(&s);
    aw_cf_view v;
    aw_cf_view_init(&v);
    v.talk.validate = validate;
    v.talk.free_parsed = free_parsed;
    host_list *talks = calloc(1, sizeof *talks), *whispers = calloc(1, sizeof *whispers);
    int rewinds = 0;
    for (int day = 1; day <= 12; day++) {
        clear(talks);
        clear(whispers);
        int steps = 20 + (int)next(120);
        for (int i = 0; i < steps && talks->n < MAX_TALKS - 3 && whispers->n < MAX_TALKS - 3; i++) {
            if (s.talks.n > 1 && next(8) == 0) {
                /* Wind back the host's record of the child's talks to its
                 * first k entries: the next ask keeps k, sends the rest. */
                int k = 1 + (int)next((unsigned)s.talks.n - 1);
                const aw_talk *last = &talks->t[k - 1];
                s.talks.n = k;
                s.talks.day = last->day;
                s.talks.idx = last->idx;
                s.talks.turn = last->turn;
                s.talks.agent = last->agent;
                s.talks.len = last->len;
                rewinds++;
            }
            for (int k = (int)next(3); k > 0; k--)
                add(talks, day);
            if (next(2))
                add(whispers, day);
            ask(&s, &v, talks, whispers, day);
        }
        /* Every form of a dropped entry was freed. */
        CHECK_INT(live_forms, held_forms(&v));
    }
    CHECK(rewinds > 10);
    aw_cf_view_free(&v);
    CHECK_INT(live_forms, 0);
    clear(talks);
    clear(whispers);
    free(talks);
    free(whispers);
    return test_done();
}
