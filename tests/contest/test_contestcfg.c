/* test_contestcfg: contest.cfg written and read back the same
 * (contestcfg.c), and the slices of a contest checked against each other
 * before a merge (contestmerge.c): another contest, a shard given twice, a
 * damaged shard line, a missing shard; the logs brought over. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "contestcfg.h"
#include "contestmerge.h"
#include "test.h"

static char root[] = "/tmp/test_contestcfg.XXXXXX";

/* A two-entry seed2015 contest, shard sh of n. */
static void make(aw_contest_cfg *c, int sh, int n, uint64_t seed)
{
    memset(c, 0, sizeof *c);
    c->format = AW_FORMAT_SEED2015;
    CHECK_INT(aw_contest_cfg_parse_players("5,15", c), 0);
    c->games_per_entry = 30;
    c->seed = seed;
    c->limits.budget_ms = 100;
    c->limits.memory_bytes = (size_t)64 << 20;
    aw_error err;
    aw_fault_policy_parse(AW_FAULT_POLICY_DEFAULT, &c->policy, &err);
    snprintf(c->preset, sizeof c->preset, "seed2015");
    c->sets_kv[c->nsets_kv++] = aw_xstrdup("maxTalk=3");
    c->shard = sh;
    c->nshards = n;
    c->duplicate = 2;
    c->nentries = 2;
    c->entries = aw_xcalloc(2, sizeof *c->entries);
    c->entries[0] = (aw_contest_entry){aw_xstrdup("agents/a.lua"), NULL, NULL, aw_xstrdup("a"), 0x1234};
    c->entries[1] = (aw_contest_entry){aw_xstrdup("agents/b"), NULL, NULL, aw_xstrdup("b"), 0xabcdef};
}

/* Writes c as DIR/NAME/contest.cfg (text: instead, when not NULL). */
static const char *slice(const char *name, const aw_contest_cfg *c, const char *text)
{
    static char dirs[8][256];
    static int n;
    char *d = dirs[n++ % 8];
    snprintf(d, 256, "%s/%s", root, name);
    mkdir(d, 0777);
    aw_buf b;
    aw_buf_init(&b);
    if (text)
        aw_buf_adds(&b, text);
    else
        aw_contest_cfg_format(c, true, &b);
    char path[300];
    snprintf(path, sizeof path, "%s/contest.cfg", d);
    CHECK_INT(aw_contest_write_file(path, b.data, b.len), 0);
    aw_buf_free(&b);
    return d;
}

static void test_roundtrip(void)
{
    aw_contest_cfg c, back;
    make(&c, 2, 3, 42);
    const char *d = slice("rt", &c, NULL);
    char why[600];
    CHECK_INT(aw_contest_cfg_read(d, &back, why, sizeof why), 0);
    aw_buf a, b;
    aw_buf_init(&a);
    aw_buf_init(&b);
    aw_contest_cfg_format(&c, true, &a);
    aw_contest_cfg_format(&back, true, &b);
    CHECK_STR(b.data, a.data);
    CHECK(strstr(a.data, "duplicate\t2\n") != NULL);
    CHECK(strstr(a.data, "shard\t2/3\n") != NULL);
    /* The limits as contest.cfg has always kept them: milliseconds and
     * whole MiB, work only when given; read back whole. */
    CHECK(strstr(a.data, "\nbudget\t100\nmemory\t64\n") != NULL);
    CHECK(strstr(a.data, "\nwork\t") == NULL);
    CHECK(back.limits.budget_ms == 100 && back.limits.memory_bytes == (size_t)64 << 20 &&
          back.limits.work_budget == 0);
    CHECK_INT(back.nentries, 2);
    CHECK(back.entries[1].hash == 0xabcdef);
    CHECK_STR(back.entries[1].path, "agents/b");
    aw_buf_free(&a);
    aw_buf_free(&b);
    aw_contest_cfg_free(&back);
    aw_contest_cfg_free(&c);
    /* not a configuration */
    d = slice("junk", NULL, "hello\n");
    CHECK_INT(aw_contest_cfg_read(d, &back, why, sizeof why), -1);
    CHECK(strstr(why, "is not a contest configuration this version understands") != NULL);
    CHECK_INT(back.nentries, 0);
    CHECK_INT(aw_contest_cfg_parse_players("5,5", &back), -1);
    CHECK_INT(aw_contest_cfg_parse_players("2", &back), -1);
    CHECK_INT(aw_contest_cfg_parse_players("5,6,7,8,9", &back), -1);
}

/* A hand-edited contest.cfg: every number out of its range, not a
 * number, or past what a long holds, is refused with its key named (it
 * divided by zero and overflowed the schedule). */
static void test_hostile_numbers(void)
{
    static const char *const lines[] = {
        "shard\t1/0\n",      "shard\t0/0\n",         "shard\t-1/-5\n",
        "shard\t1/2000000000\n", "shard\t1/2x\n",
        "games-per-entry\t99999999999999999999\n", "games-per-entry\t-3\n", "games-per-entry\t12abc\n",
        "sets\t4294967296\n", "set-games\t\n",      "budget\t-1\n",   "memory\t100000001\n",
        "duplicate\t101\n",    "until-separated\t-2\n",
    };
    aw_contest_cfg c, back;
    make(&c, 1, 1, 3);
    char why[600];
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        aw_buf b;
        aw_buf_init(&b);
        aw_contest_cfg_format(&c, true, &b);
        aw_buf_adds(&b, lines[i]); /* the later line wins */
        const char *d = slice("num", NULL, b.data);
        aw_buf_free(&b);
        CHECK_MSG(aw_contest_cfg_read(d, &back, why, sizeof why) == -1, "accepted %s", lines[i]);
        char key[32];
        snprintf(key, sizeof key, "%.*s", (int)strcspn(lines[i], "\t"), lines[i]);
        CHECK_MSG(strstr(why, key) != NULL, "%s: %s", key, why);
        CHECK_INT(back.nentries, 0);
    }
    /* the edges are read */
    aw_buf b;
    aw_buf_init(&b);
    aw_contest_cfg_format(&c, true, &b);
    aw_buf_adds(&b, "shard\t1000000/1000000\ngames-per-entry\t100000000\nuntil-separated\t-1\n");
    CHECK_INT(aw_contest_cfg_read(slice("edges", NULL, b.data), &back, why, sizeof why), 0);
    CHECK_INT(back.nshards, 1000000);
    CHECK(back.games_per_entry == 100000000);
    aw_buf_free(&b);
    aw_contest_cfg_free(&back);
    aw_contest_cfg_free(&c);
}

/* What a person who named the wrong folder, or hand-edited contest.cfg,
 * is told: the folder, or the line, and what is wrong with it. */
static void test_messages(void)
{
    aw_contest_cfg back;
    char why[600], path[300];
    CHECK_INT(aw_contest_cfg_read("/nonexistent/x", &back, why, sizeof why), -1);
    CHECK_STR(why, "no folder '/nonexistent/x'");
    snprintf(path, sizeof path, "%s/empty", root);
    mkdir(path, 0777);
    CHECK_INT(aw_contest_cfg_read(path, &back, why, sizeof why), -1);
    CHECK_MSG(strstr(why, "/empty' holds no contest (no contest.cfg)") != NULL, "%s", why);
    snprintf(path, sizeof path, "%s/afile", root);
    CHECK_INT(aw_contest_write_file(path, "x\n", 2), 0);
    CHECK_INT(aw_contest_cfg_read(path, &back, why, sizeof why), -1);
    CHECK_MSG(strstr(why, "/afile' is a file: give a contest's folder") != NULL, "%s", why);
    static const struct {
        const char *text, *said;
    } cases[] = {
        {"", "its first line is not 'aiwolf-contest<tab>1'"},
        {"aiwolf-contest\t1\nformat\tseed2015\n", "it names no players"},
        {"aiwolf-contest\t1\nplayers\t5\n", "it names no entry"},
        {"aiwolf-contest\t1\nplayers\t5\ngarbage line\n", "line 3 is not KEY<tab>VALUE: 'garbage line'"},
        {"aiwolf-contest\t1\nplayers\t5\nentry\tab\n", "line 3: an entry is HASH<tab>NAME<tab>PATH"},
        {"aiwolf-contest\t1\nfault-policy\tsome\n", "line 2: 'fault-policy' has a value this version does not take"},
        {"aiwolf-contest\t1\nplayers\t2\n", "line 2: 'players' has a value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *d = slice("msg", NULL, cases[i].text);
        CHECK_INT(aw_contest_cfg_read(d, &back, why, sizeof why), -1);
        CHECK_MSG(strstr(why, "is not a contest configuration this version understands: ") != NULL &&
                      strstr(why, cases[i].said) != NULL,
                  "case %zu: %s", i, why);
    }
}

static void test_slices(void)
{
    aw_contest_cfg c1, c2, other;
    make(&c1, 1, 3, 7);
    make(&c2, 2, 3, 7);
    make(&other, 2, 3, 8); /* another seed: another contest */
    const char *s1 = slice("s1", &c1, NULL), *s2 = slice("s2", &c2, NULL), *so = slice("so", &other, NULL);
    const char *again = slice("s1b", &c1, NULL);
    aw_contest_cfg first;
    bool *seen;
    aw_error err;
    const char *ok[] = {s1, s2};
    CHECK_INT(aw_contest_merge_slices(ok, 2, &first, &seen, &err), 0);
    CHECK_INT(first.nshards, 3);
    CHECK(seen[1] && seen[2] && !seen[3]); /* 3/3 missing: the command warns */
    free(seen);
    aw_contest_cfg_free(&first);
    const char *mixed[] = {s1, so};
    CHECK_INT(aw_contest_merge_slices(mixed, 2, &first, &seen, &err), -1);
    CHECK(strstr(err.msg, "is a slice of another contest than") != NULL);
    CHECK(seen == NULL && first.nentries == 0);
    /* the same contest cut into another number of slices */
    aw_contest_cfg halves;
    make(&halves, 2, 2, 7);
    const char *sh2 = slice("h2", &halves, NULL);
    aw_contest_cfg_free(&halves);
    const char *cuts[] = {s1, sh2};
    CHECK_INT(aw_contest_merge_slices(cuts, 2, &first, &seen, &err), -1);
    CHECK(strstr(err.msg, "is a slice of another contest than") != NULL);
    const char *twice[] = {s1, s2, again};
    CHECK_INT(aw_contest_merge_slices(twice, 3, &first, &seen, &err), -1);
    CHECK_STR(err.msg, "shard 1/3 is given twice");
    /* a damaged shard line never indexes past the shards */
    aw_buf b;
    aw_buf_init(&b);
    aw_contest_cfg_format(&c2, false, &b);
    aw_buf_adds(&b, "shard\t9/3\n");
    const char *bad = slice("bad", NULL, b.data);
    aw_buf_free(&b);
    const char *damaged[] = {s1, bad};
    CHECK_INT(aw_contest_merge_slices(damaged, 2, &first, &seen, &err), -1);
    CHECK(strstr(err.msg, "shard is not I/N with 1 <= I <= N") != NULL);
    const char *none[] = {"/nonexistent/x"};
    CHECK_INT(aw_contest_merge_slices(none, 1, &first, &seen, &err), -1);
    /* the merged folder: made once, refused when it holds a contest */
    char out[300];
    snprintf(out, sizeof out, "%s/merged", root);
    CHECK_INT(aw_contest_merge_folder(out, &err), 0);
    CHECK_INT(aw_contest_merge_folder(s1, &err), -1);
    CHECK(strstr(err.msg, "holds a contest already") != NULL);
    aw_contest_cfg_free(&c1);
    aw_contest_cfg_free(&c2);
    aw_contest_cfg_free(&other);
}

int main(void)
{
    if (!mkdtemp(root))
        return 1;
    test_roundtrip();
    test_hostile_numbers();
    test_messages();
    test_slices();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    return test_done();
}
