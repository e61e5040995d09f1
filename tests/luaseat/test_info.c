/* The info a Lua agent gets is the view the host has, at every call of whole
 * games: tests/luaseat/info_dump.lua prints all it holds at each call and a
 * wrapper seat builds the same text from the aw_info the call was made
 * with. This covers the updates in place (maps, lists appended, lists and
 * results replaced when they change), a talk's parsed tree made when first
 * read (the host's tree during its day; the text parsed again later), the
 * same table all game, and agents that vandalize their info after every
 * call (odd agents: fields replaced, lists' lengths changed) and still get
 * the truth. Every seat is a Lua agent, so every role's view is seen.
 * Then agents that read a random part of their info at random calls
 * (tests/luaseat/info_sparse.lua) must read the view too: the lists the host
 * makes only when read (luaseat.c, lazy fields) are never stale nor missing. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "game.h"
#include "luaseat.h"
#include "luaseat_talks.h"
#include "protocol.h"
#include "talkhooks.h"
#include "test.h"
#include "wrap_seat.h"

typedef struct checker {
    wrap_seat w; /* its agent: w.agent */
    FILE *out;
    char *buf;
    size_t len, seen;
    bool saved;
    int saved_day;
    aw_buf old;  /* odd entries of the lists of the last call, "\nidx=tree..." */
    long calls, bad;
    const char *name;  /* the agent's name, in its printed lines */
    bool sparse;       /* info_sparse.lua: "@i" records of the fields it read */
    long records;      /* of them, checked */
} checker;

static const char *parsed_str(const aw_talk *t, char **tmp)
{
    *tmp = t->parsed ? aw_protocol_to_string(t->parsed) : NULL;
    return *tmp ? *tmp : "-";
}

static void add_talks(aw_buf *b, const aw_talk *t, int n)
{
    for (int i = 0; i < n; i++) {
        char *tmp = NULL;
        aw_buf_printf(b, "%s%d:%d:%d:%d:%.*s:%s", i ? "\n" : "", t[i].agent, t[i].day, t[i].idx, t[i].turn,
                      (int)t[i].len, t[i].text, t[i].idx % 2 == 0 ? parsed_str(&t[i], &tmp) : "?");
        free(tmp);
    }
    aw_buf_printf(b, "#%d", n);
}

static void add_votes(aw_buf *b, const aw_vote *v, int n)
{
    for (int i = 0; i < n; i++)
        aw_buf_printf(b, "%s%d>%d@%d", i ? "," : "", v[i].agent, v[i].target, v[i].day);
    aw_buf_printf(b, "#%d", n);
}

static void add_judge(aw_buf *b, const aw_judge *j)
{
    if (!j->agent)
        aw_buf_adds(b, "-");
    else
        aw_buf_printf(b, "%d>%d@%d=%s#4", j->agent, j->target, j->day, aw_species_name(j->result));
}

static void add_opt(aw_buf *b, int a)
{
    if (a > 0)
        aw_buf_printf(b, "%d", a);
    else
        aw_buf_adds(b, "-");
}

static void add_old(aw_buf *b, const aw_talk *t, int n)
{
    for (int i = 0; i < n; i++)
        if (t[i].idx % 2 == 1) {
            char *tmp = NULL;
            aw_buf_printf(b, "\n%d=%s", t[i].idx, parsed_str(&t[i], &tmp));
            free(tmp);
        }
}

static void expect(checker *c, const aw_info *in, aw_buf *b)
{
    int n = in->n;
    aw_buf_printf(b, "D\n%d\n%d\n%s\n", in->agent, in->day, aw_role_name(in->my_role));
    for (int a = 1; a <= n; a++)
        aw_buf_printf(b, "%s%s", a > 1 ? "," : "", in->alive[a] ? "ALIVE" : "DEAD");
    int k = 0;
    aw_buf_printf(b, "#%d\n", n);
    for (int a = 1; a <= n; a++) {
        aw_buf_printf(b, "%s%s", a > 1 ? "," : "", in->role[a] == AW_ROLE_NONE ? "-" : aw_role_name(in->role[a]));
        k += in->role[a] != AW_ROLE_NONE;
    }
    aw_buf_printf(b, "#%d\n", k);
    for (int m = 0; m < 2; m++) {
        const int *r = m ? in->remain_whisper : in->remain_talk;
        k = 0;
        for (int a = 1; a <= n; a++) {
            if (r[a] >= 0)
                aw_buf_printf(b, "%s%d", a > 1 ? "," : "", r[a]);
            else
                aw_buf_printf(b, "%s-", a > 1 ? "," : "");
            k += r[a] >= 0;
        }
        aw_buf_printf(b, "#%d\n", k);
    }
    const aw_role by_name[] = {AW_BODYGUARD, AW_FOX,      AW_FREEMASON, AW_MEDIUM,
                               AW_POSSESSED, AW_SEER,     AW_VILLAGER,  AW_WEREWOLF};
    k = 0;
    for (size_t i = 0; i < sizeof by_name / sizeof by_name[0]; i++)
        if (in->existing_role[by_name[i]])
            aw_buf_printf(b, "%s%s", k++ ? "," : "", aw_role_name(by_name[i]));
    aw_buf_adds(b, "\n");
    add_talks(b, in->talks, in->ntalks);
    aw_buf_adds(b, "\n");
    add_talks(b, in->whispers, in->whispers ? in->nwhispers : 0);
    aw_buf_adds(b, "\n");
    add_votes(b, in->votes, in->nvotes);
    aw_buf_adds(b, "\n");
    add_votes(b, in->latest_votes, in->nlatest_votes);
    aw_buf_adds(b, "\n");
    add_opt(b, in->executed);
    aw_buf_adds(b, "\n");
    add_opt(b, in->latest_executed);
    aw_buf_adds(b, "\n");
    for (int i = 0; i < in->nlast_dead; i++)
        aw_buf_printf(b, "%s%d", i ? "," : "", in->last_dead[i]);
    aw_buf_adds(b, "\n");
    add_judge(b, &in->divine_result);
    aw_buf_adds(b, "\n");
    add_judge(b, &in->medium_result);
    aw_buf_adds(b, "\n");
    add_opt(b, in->attacked);
    aw_buf_adds(b, "\n");
    add_opt(b, in->guarded);
    aw_buf_adds(b, "\n");
    add_votes(b, in->attack_votes, in->nattack_votes);
    aw_buf_adds(b, "\n");
    add_votes(b, in->latest_attack_votes, in->nlatest_attack_votes);
    aw_buf_printf(b, "\n%d", 15 + (in->executed > 0) + (in->latest_executed > 0) + (in->divine_result.agent != 0) +
                                 (in->medium_result.agent != 0) + (in->attacked > 0) + (in->guarded > 0));
    /* The same lists read through aiwolf.talks. */
    aw_buf_adds(b, "\n");
    add_talks(b, in->talks, in->ntalks);
    aw_buf_adds(b, "\n");
    add_talks(b, in->whispers, in->whispers ? in->nwhispers : 0);
    /* The lists kept from the previous day (even agents): their odd entries. */
    if (c->w.agent % 2 == 0) {
        if (c->saved && c->saved_day != in->day) {
            aw_buf_printf(b, "\nold%.*s", (int)c->old.len, c->old.data ? c->old.data : "");
            c->saved = false;
        }
        if (!c->saved || c->saved_day == in->day) {
            c->saved = true;
            c->saved_day = in->day;
            aw_buf_clear(&c->old);
            add_old(&c->old, in->talks, in->ntalks);
            add_old(&c->old, in->whispers, in->whispers ? in->nwhispers : 0);
        }
    }
    aw_buf_adds(b, "\n");
}

/* What the agent printed since the last call, without the "[Agent[NN] name] "
 * of each line. */
static void printed(checker *c, aw_buf *b)
{
    fflush(c->out);
    const char *p = c->buf + c->seen, *end = c->buf + c->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        char prefix[64];
        int k = snprintf(prefix, sizeof prefix, "[Agent[%02d] %s] ", c->w.agent, c->name);
        const char *start = strncmp(p, prefix, (size_t)k) == 0 ? p + k : p;
        size_t n = (size_t)((nl ? nl + 1 : end) - start);
        aw_buf_add(b, start, n);
        p = nl ? nl + 1 : end;
    }
    c->seen = c->len;
}

/* Field i of the line expect() made (0 the "D", 22 the count of pairs): one
 * line each, but the talk and whisper lists one line a talk. */
static bool field_of(const aw_buf *e, const aw_info *in, int want, const char **p, size_t *len)
{
    const char *q = e->data, *end = e->data + e->len;
    for (int f = 0; f <= want; f++) {
        int lines = f == 9 ? in->ntalks : f == 10 ? (in->whispers ? in->nwhispers : 0) : 1;
        const char *start = q;
        for (int l = 0; l < (lines > 1 ? lines : 1); l++) {
            const char *nl = memchr(q, '\n', (size_t)(end - q));
            if (!nl)
                return false;
            q = nl + 1;
        }
        if (f == want) {
            *p = start;
            *len = (size_t)(q - 1 - start);
            return true;
        }
    }
    return false;
}

/* Compares each "@i\nvalue" record the sparse agent printed with field i of
 * the view; returns the number of records that differ (or do not parse). */
static long check_sparse(checker *c, const aw_info *in, const aw_buf *want, const aw_buf *got)
{
    long bad = 0;
    const char *q = got->data, *end = got->data + got->len;
    while (q && q < end) {
        char *after;
        long i = *q == '@' ? strtol(q + 1, &after, 10) : 0;
        if (i < 1 || i > 22 || after >= end || *after != '\n')
            return bad + 1;
        const char *v = after + 1, *next = v;
        /* the value runs to the next line that starts with '@' */
        for (;;) {
            const char *nl = memchr(next, '\n', (size_t)(end - next));
            if (!nl) {
                next = end;
                break;
            }
            next = nl + 1;
            if (next >= end || *next == '@')
                break;
        }
        size_t vlen = (size_t)(next - v) - (next > v && next[-1] == '\n');
        const char *e = "";
        size_t elen = 0;
        c->records++;
        if (!field_of(want, in, i, &e, &elen) || elen != vlen || memcmp(e, v, vlen) != 0) {
            if (bad++ == 0 && c->bad == 0)
                fprintf(stderr, "Agent[%02d] (sparse) read field %ld as\n%.*s\nbut the view has\n%.*s\n", c->w.agent, i,
                        (int)vlen, v, field_of(want, in, i, &e, &elen) ? (int)elen : 0, e);
        }
        q = next;
    }
    return bad;
}

static void ck_begun(wrap_seat *w)
{
    ((checker *)w)->saved = false;
}

static int ck_request(wrap_seat *w, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                      aw_seat_reply *reply, aw_seat_fault *f)
{
    checker *c = (checker *)w;
    aw_buf want, got;
    aw_buf_init(&want);
    aw_buf_init(&got);
    expect(c, info, &want);
    int rc = wrap_pass(w, kind, info, set, reply, f);
    printed(c, &got);
    c->calls++;
    if (c->sparse) {
        c->bad += check_sparse(c, info, &want, &got);
    } else if (got.len != want.len || memcmp(got.data, want.data, want.len) != 0) {
        if (c->bad++ == 0)
            fprintf(stderr, "Agent[%02d], request %d: the agent saw\n%.*s\nbut the view was\n%.*s\n", c->w.agent,
                    (int)kind, (int)got.len, got.data ? got.data : "", (int)want.len, want.data);
    }
    aw_buf_free(&want);
    aw_buf_free(&got);
    return rc;
}

static long sparse_records;

static void play(const char *preset, int players, uint64_t seed, bool sparse)
{
    aw_settings set;
    aw_error err;
    CHECK(aw_settings_preset(&set, preset, players, &err) == 0);
    checker ck[AW_MAX_PLAYERS + 1];
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= players; a++) {
        checker *c = &ck[a];
        memset(c, 0, sizeof *c);
        wrap_seat_init(&c->w, NULL, ck_request);
        c->w.begun = ck_begun;
        c->out = open_memstream(&c->buf, &c->len);
        c->sparse = sparse;
        c->name = sparse ? "info_sparse" : "info_dump";
        aw_luaseat_opts lo;
        memset(&lo, 0, sizeof lo);
        lo.output = c->out;
        aw_luaseat_talks(&lo);
        lo.limits.budget_ms = 2000; /* views are checked here, not budgets: room for sanitized runs on a loaded machine */
        c->w.inner = aw_luaseat_new(sparse ? "tests/luaseat/info_sparse.lua" : "tests/luaseat/info_dump.lua", &lo, &err);
        CHECK_MSG(c->w.inner != NULL, "%s", err.msg);
        if (!c->w.inner)
            return;
        seats[a] = &c->w.base;
    }
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = &set;
    go.seed = seed;
    aw_talkhooks_game(&go);
    aw_game_result res;
    CHECK(aw_game_play(&go, seats, &res, &err) == 0);
    CHECK_INT(res.faults, 0);
    for (int a = 1; a <= players; a++) {
        checker *c = &ck[a];
        CHECK(c->calls > 5);
        sparse_records += c->records;
        CHECK_MSG(c->bad == 0, "%s, %d players, seed %llu: Agent[%02d]'s info differed from its view at %ld of %ld calls",
                  preset, players, (unsigned long long)seed, a, c->bad, c->calls);
        c->w.inner->ops->free(c->w.inner);
        fclose(c->out);
        free(c->buf);
        aw_buf_free(&c->old);
    }
}

/* An agent that changes entries of its maps (tests/luaseat/info_mutate.lua)
 * finds them as docs/agents.md says: its value until the game changes the
 * entry, the truth after. */
static int mutate_marked, mutate_talked;

static void play_mutate(uint64_t seed)
{
    aw_settings set;
    aw_error err;
    CHECK(aw_settings_preset(&set, "aiwolf", 5, &err) == 0);
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    aw_luaseat_talks(&lo);
    lo.limits.budget_ms = 2000;
    char *out = NULL;
    size_t outlen = 0;
    lo.output = open_memstream(&out, &outlen);
    aw_seat *seats[6];
    seats[1] = aw_luaseat_new("tests/luaseat/info_mutate.lua", &lo, &err);
    CHECK_MSG(seats[1] != NULL, "%s", err.msg);
    if (!seats[1])
        return;
    for (int a = 2; a <= 5; a++)
        seats[a] = aw_cseat_random((uint64_t)a);
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = &set;
    go.seed = seed;
    aw_talkhooks_game(&go);
    aw_game_result res;
    CHECK(aw_game_play(&go, seats, &res, &err) == 0);
    CHECK_MSG(res.faults == 0, "seed %llu: the mutating agent's checks failed", (unsigned long long)seed);
    for (int a = 1; a <= 5; a++)
        seats[a]->ops->free(seats[a]);
    fclose(lo.output);
    mutate_marked += strstr(out, "] marked\n") != NULL;
    mutate_talked += strstr(out, "] checked after a talk\n") != NULL;
    free(out);
}

int main(void)
{
    for (uint64_t seed = 1; seed <= 10; seed++)
        play_mutate(seed);
    /* The checks ran: most games mark the maps, and many talk after it. */
    CHECK(mutate_marked >= 5);
    CHECK(mutate_talked >= 3);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        play("aiwolf", 15, seed, false);
        play("aiwolf", 5, seed, false);
        play("seed2015", 15, seed, false);
    }
    /* Agents that read a random part of their info at random calls. */
    for (uint64_t seed = 1; seed <= 12; seed++) {
        play("aiwolf", 15, seed, true);
        play("aiwolf", 5, seed, true);
        play("seed2015", 15, seed, true);
    }
    CHECK(sparse_records > 1000);
    return test_done();
}
