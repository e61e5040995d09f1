/* A replay must not reproduce what the official server would not have
 * written: copies of official logs with one change each (a talk moved to
 * another agent, an invalid talk text, a vote for oneself, another executed
 * agent, a flipped divination, a changed attack outcome, status or result
 * line, a deleted, duplicated or swapped line, CRLF endings) are reported as
 * differing, at the right line. A change the rules allow (two talks of one
 * turn in the other order) still replays. Truncated and garbage logs are
 * refused with a clean error, and random damage never crashes the replay.
 * The copies are made in memory; the fixtures are never touched. Runs from
 * the project root. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logreplay.h"
#include "rng.h"
#include "test.h"
#include "test_lines.h"

#define FIX "tests/fixtures/official/"

static aw_settings rules;

/* A log as an array of lines (without their newlines). */
static test_lines load(const char *path)
{
    test_lines d = {NULL, 0};
    aw_error err;
    size_t len;
    char *text = aw_read_file(path, &len, &err);
    CHECK_MSG(text != NULL, "%s", err.msg);
    if (!text)
        return d;
    d = test_lines_split(text);
    free(text);
    return d;
}

static int replay_doc(const test_lines *d, const char *eol, aw_replay_report *rep)
{
    size_t len;
    char *text = test_lines_join(d, eol, &len);
    aw_error err;
    int v = aw_replay(text, len, &rules, NULL, rep, &err);
    free(text);
    return v;
}

/* Field k (0-based) of a line, copied into buf. */
static const char *field(const char *line, int k, char *buf, size_t cap)
{
    const char *p = line;
    for (int i = 0; i < k && p; i++) {
        p = strchr(p, ',');
        if (p)
            p++;
    }
    if (!p) {
        buf[0] = '\0';
        return buf;
    }
    size_t n = strcspn(p, k >= 5 ? "" : ",");
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

static bool is_type(const char *line, const char *type)
{
    char f[32];
    return strcmp(field(line, 1, f, sizeof f), type) == 0;
}

static int num(const char *line, int k)
{
    char f[32];
    return atoi(field(line, k, f, sizeof f));
}

static int first_of(const test_lines *d, const char *type, int from)
{
    for (int i = from; i < d->n; i++)
        if (is_type(d->line[i], type))
            return i;
    return -1;
}

static int mutations_tried;

/* The mutated copy must differ, and the first difference (or the problem
 * found while answering) must not come before the changed line. */
static void expect_differs(const test_lines *m, const char *what, const char *path, int changed, bool exact)
{
    aw_replay_report rep;
    int v = replay_doc(m, "\n", &rep);
    mutations_tried++;
    CHECK_MSG(v == AW_REPLAY_DIFFERS, "%s (%s, line %d): verdict %d (%s)", path, what, changed + 1, v, rep.error);
    if (v != AW_REPLAY_DIFFERS)
        return;
    long at = rep.diff_line ? rep.diff_line : rep.problem_line;
    if (exact)
        CHECK_MSG(rep.diff_line == changed + 1, "%s (%s): first difference at line %ld, changed line %d", path, what,
                  rep.diff_line, changed + 1);
    else
        CHECK_MSG(at == 0 || at >= changed + 1, "%s (%s): difference at line %ld before the changed line %d", path,
                  what, at, changed + 1);
}

static void mutate_log(const char *path)
{
    test_lines d = load(path);
    if (d.n == 0)
        return;
    char buf[512], f[64];
    int n = 0;
    while (n < d.n && is_type(d.line[n], "status") && num(d.line[n], 0) == 0)
        n++;

    /* 1. a talk moved to another agent (the next one, cyclically) */
    int t = first_of(&d, "talk", 0);
    if (t >= 0) {
        test_lines m = test_lines_copy(&d);
        int a = num(d.line[t], 4) % n + 1;
        snprintf(buf, sizeof buf, "%d,talk,%d,%d,%d,%s", num(d.line[t], 0), num(d.line[t], 2), num(d.line[t], 3), a,
                 field(d.line[t], 5, f, sizeof f));
        test_lines_set(&m, t, buf);
        expect_differs(&m, "talk moved to another agent", path, t, false);
        test_lines_free(&m);
    }
    /* 2. a real utterance replaced by text the validator rejects: our engine
     * logs Skip right there */
    for (int i = 0; i < d.n; i++) {
        if (!is_type(d.line[i], "talk"))
            continue;
        field(d.line[i], 5, f, sizeof f);
        if (!strcmp(f, "Skip") || !strcmp(f, "Over"))
            continue;
        test_lines m = test_lines_copy(&d);
        snprintf(buf, sizeof buf, "%d,talk,%d,%d,%d,hello world", num(d.line[i], 0), num(d.line[i], 2),
                 num(d.line[i], 3), num(d.line[i], 4));
        test_lines_set(&m, i, buf);
        expect_differs(&m, "invalid talk text", path, i, true);
        test_lines_free(&m);
        break;
    }
    /* 3. a vote for oneself */
    int v = first_of(&d, "vote", 0);
    if (v >= 0) {
        test_lines m = test_lines_copy(&d);
        snprintf(buf, sizeof buf, "%d,vote,%d,%d", num(d.line[v], 0), num(d.line[v], 2), num(d.line[v], 2));
        test_lines_set(&m, v, buf);
        expect_differs(&m, "vote for oneself", path, v, false);
        test_lines_free(&m);
    }
    /* 4. another agent executed (the voters' favourite is fixed by the votes) */
    int e = first_of(&d, "execute", 0);
    if (e >= 0) {
        test_lines m = test_lines_copy(&d);
        snprintf(buf, sizeof buf, "%d,execute,%d,%s", num(d.line[e], 0), num(d.line[e], 2) % n + 1,
                 field(d.line[e], 3, f, sizeof f));
        test_lines_set(&m, e, buf);
        expect_differs(&m, "another agent executed", path, e, true);
        test_lines_free(&m);
    }
    /* 5. a divination with the other result */
    int dv = first_of(&d, "divine", 0);
    if (dv >= 0) {
        test_lines m = test_lines_copy(&d);
        snprintf(buf, sizeof buf, "%d,divine,%d,%d,%s", num(d.line[dv], 0), num(d.line[dv], 2), num(d.line[dv], 3),
                 strcmp(field(d.line[dv], 4, f, sizeof f), "HUMAN") ? "HUMAN" : "WEREWOLF");
        test_lines_set(&m, dv, buf);
        expect_differs(&m, "divine result flipped", path, dv, true);
        test_lines_free(&m);
    }
    /* 6. an attack with the other outcome */
    int at = first_of(&d, "attack", 0);
    if (at >= 0 && num(d.line[at], 2) > 0) {
        test_lines m = test_lines_copy(&d);
        snprintf(buf, sizeof buf, "%d,attack,%d,%s", num(d.line[at], 0), num(d.line[at], 2),
                 strcmp(field(d.line[at], 3, f, sizeof f), "true") ? "true" : "false");
        test_lines_set(&m, at, buf);
        expect_differs(&m, "attack outcome flipped", path, at, true);
        test_lines_free(&m);
    }
    /* 7. a role changed in the day-1 status block */
    int s1 = -1;
    for (int i = n; i < d.n && s1 < 0; i++)
        if (is_type(d.line[i], "status"))
            s1 = i;
    if (s1 >= 0) {
        test_lines m = test_lines_copy(&d);
        char alive[100];
        snprintf(buf, sizeof buf, "%d,status,%d,%s,%s,%s", num(d.line[s1], 0), num(d.line[s1], 2),
                 strcmp(field(d.line[s1], 3, f, sizeof f), "VILLAGER") ? "VILLAGER" : "SEER",
                 field(d.line[s1], 4, f + 32, 32), field(d.line[s1], 5, alive, sizeof alive));
        test_lines_set(&m, s1, buf);
        expect_differs(&m, "status role changed", path, s1, true);
        test_lines_free(&m);
        m = test_lines_copy(&d);
        snprintf(buf, sizeof buf, "%s-renamed", d.line[s1]);
        test_lines_set(&m, s1, buf);
        expect_differs(&m, "agent renamed", path, s1, true);
        test_lines_free(&m);
    }
    /* 8. the result line with another winner */
    {
        int r = d.n - 1;
        test_lines m = test_lines_copy(&d);
        snprintf(buf, sizeof buf, "%d,result,%d,%d,%s", num(d.line[r], 0), num(d.line[r], 2), num(d.line[r], 3),
                 strcmp(field(d.line[r], 4, f, sizeof f), "VILLAGER") ? "VILLAGER" : "WEREWOLF");
        test_lines_set(&m, r, buf);
        expect_differs(&m, "winner changed", path, r, true);
        test_lines_free(&m);
    }
    /* 9. a vote line deleted, a talk line duplicated */
    if (v >= 0) {
        test_lines m = test_lines_copy(&d);
        free(m.line[v]);
        memmove(m.line + v, m.line + v + 1, sizeof(char *) * (size_t)(m.n - v - 1));
        m.n--;
        expect_differs(&m, "vote deleted", path, v, false);
        test_lines_free(&m);
    }
    if (t >= 0) {
        test_lines m = test_lines_copy(&d);
        memmove(m.line + t + 1, m.line + t, sizeof(char *) * (size_t)(m.n - t));
        m.line[t] = aw_xstrdup(d.line[t]);
        m.n++;
        expect_differs(&m, "talk duplicated", path, t + 1, false);
        test_lines_free(&m);
    }
    /* 10. two talks of turn 0 swapped as whole lines (their idx out of
     * order): differs; swapped keeping idx and turn (another talk order,
     * which the rules allow): replays */
    if (t >= 0 && t + 1 < d.n && is_type(d.line[t + 1], "talk") && num(d.line[t + 1], 3) == num(d.line[t], 3)) {
        test_lines m = test_lines_copy(&d);
        char *x = m.line[t];
        m.line[t] = m.line[t + 1];
        m.line[t + 1] = x;
        expect_differs(&m, "talk lines swapped", path, t, true);
        test_lines_free(&m);
        m = test_lines_copy(&d);
        char g[256];
        snprintf(buf, sizeof buf, "%d,talk,%d,%d,%d,%s", num(d.line[t], 0), num(d.line[t], 2), num(d.line[t], 3),
                 num(d.line[t + 1], 4), field(d.line[t + 1], 5, g, sizeof g));
        test_lines_set(&m, t, buf);
        snprintf(buf, sizeof buf, "%d,talk,%d,%d,%d,%s", num(d.line[t + 1], 0), num(d.line[t + 1], 2),
                 num(d.line[t + 1], 3), num(d.line[t], 4), field(d.line[t], 5, g, sizeof g));
        test_lines_set(&m, t + 1, buf);
        aw_replay_report rep;
        CHECK_MSG(replay_doc(&m, "\n", &rep) == AW_REPLAY_REPRODUCED,
                  "%s: another talk order (lines %d, %d) does not replay: line %ld %s / %s; %s", path, t + 1, t + 2,
                  rep.diff_line, rep.ours, rep.theirs, rep.problem);
        test_lines_free(&m);
    }
    /* 11. CRLF line endings: the same lines, so the same game */
    {
        aw_replay_report rep;
        CHECK_INT(replay_doc(&d, "\r\n", &rep), AW_REPLAY_REPRODUCED);
    }
    test_lines_free(&d);
}

/* Every prefix that ends at a line break is incomplete; every cut inside a
 * line is cut off; both are refused cleanly. */
static void truncations(const char *path)
{
    aw_error err;
    size_t len;
    char *text = aw_read_file(path, &len, &err);
    CHECK(text != NULL);
    if (!text)
        return;
    long lines = 0;
    for (size_t cut = 0; cut < len; cut++) {
        aw_replay_report rep;
        int v = aw_replay(text, cut, &rules, NULL, &rep, &err);
        CHECK_MSG(v == AW_REPLAY_UNUSABLE, "%s cut at byte %zu: verdict %d", path, cut, v);
        if (cut == 0) {
            CHECK(strstr(rep.error, "empty") != NULL);
        } else if (text[cut - 1] == '\n') {
            lines++;
            CHECK_MSG(rep.error_line == lines + 1 && strstr(rep.error, "incomplete log"),
                      "%s cut after line %ld: line %ld: %s", path, lines, rep.error_line, rep.error);
        } else {
            CHECK_MSG(rep.error_line == lines + 1, "%s cut in line %ld: line %ld: %s", path, lines + 1,
                      rep.error_line, rep.error);
        }
    }
    free(text);
}

static void garbage(void)
{
    static const struct {
        const char *text;
        long line;
        const char *says;
    } cases[] = {
        {"hello\n", 1, "not a game log line"},
        {"\x7f" "ELF\x02\x01\x01\n", 1, "not a game log line"},
        {"0,status,1,SEER,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n0,result,1,1,WEREWOLF\n", 3, "at least 3"},
        {"0,status,1,SEER,ALIVE,a\n0,status,3,WEREWOLF,ALIVE,b\n0,result,1,1,WEREWOLF\n", 2, "lists agent 3"},
        {"0,status,1,SEER,DEAD,a\n0,result,1,1,WEREWOLF\n", 1, "DEAD"},
        {"1,talk,0,0,1,Over\n1,result,1,1,WEREWOLF\n", 1, "day-0 status block"},
        {"0,status,1,SEER,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n0,status,3,VILLAGER,ALIVE,c\n0,divine,1,9,HUMAN\n"
         "1,result,2,1,VILLAGER\n",
         4, "agent 9 does not exist"},
        {"0,status,1,SEER,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n0,status,3,VILLAGER,ALIVE,c\n99999,result,2,1,"
         "VILLAGER\n",
         4, "day 99999"},
        {"0,status,1,SEER,ALIVE,a\n0,status,2,VILLAGER,ALIVE,b\n0,status,3,VILLAGER,ALIVE,c\n0,result,3,0,"
         "VILLAGER\n",
         1, "cannot play"},
        {"0,status,1,SEER,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n0,status,3,VILLAGER,ALIVE,c\n0,vote,1,2\n", 5,
         "incomplete"},
        {"0,status,1,SEER,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n0,status,3,VILLAGER,ALIVE,c\n0,result,2,1,VILLAGER",
         4, "cut off"},
        {"0,status,1,SEER,ALIVE,a\n\n", 2, "empty line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        aw_replay_report rep;
        aw_error err;
        int v = aw_replay(cases[i].text, strlen(cases[i].text), &rules, NULL, &rep, &err);
        CHECK_MSG(v == AW_REPLAY_UNUSABLE, "garbage case %zu: verdict %d", i, v);
        CHECK_MSG(rep.error_line == cases[i].line && strstr(rep.error, cases[i].says), "garbage case %zu: line %ld: %s",
                  i, rep.error_line, rep.error);
    }
    /* 19 players: more than our engine plays */
    aw_buf b;
    aw_buf_init(&b);
    for (int a = 1; a <= 19; a++)
        aw_buf_printf(&b, "0,status,%d,%s,ALIVE,x\n", a, a == 1 ? "WEREWOLF" : "VILLAGER");
    aw_buf_adds(&b, "0,result,18,1,WEREWOLF\n");
    aw_replay_report rep;
    aw_error err;
    CHECK_INT(aw_replay(b.data, b.len, &rules, NULL, &rep, &err), AW_REPLAY_UNUSABLE);
    CHECK_INT(rep.error_line, 19);
    aw_buf_free(&b);
}

/* A game decided before it starts: the official server logs the day-0
 * status block and the result at once, and so does our engine, so the
 * replay reproduces it. */
static void decided_at_start(void)
{
    const char *text = "0,status,1,WEREWOLF,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n0,status,3,VILLAGER,ALIVE,c\n"
                       "0,status,4,VILLAGER,ALIVE,d\n0,result,2,2,WEREWOLF\n";
    aw_replay_report rep;
    aw_error err;
    CHECK_INT(aw_replay(text, strlen(text), &rules, NULL, &rep, &err), AW_REPLAY_REPRODUCED);
}

/* The last line differs: reported there, with both lines. */
static void last_line(void)
{
    test_lines d = load(FIX "tcp/5p_game6/game.log");
    if (d.n == 0)
        return;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", d.line[d.n - 1]);
    char *team = strrchr(buf, ',');
    if (team)
        snprintf(team + 1, sizeof buf - (size_t)(team + 1 - buf), "WEREWOLF");
    test_lines_set(&d, d.n - 1, buf);
    aw_replay_report rep;
    CHECK_INT(replay_doc(&d, "\n", &rep), AW_REPLAY_DIFFERS);
    CHECK_INT(rep.diff_line, d.n);
    CHECK_STR(rep.theirs, buf);
    CHECK(strstr(rep.ours, ",VILLAGER") != NULL);
    CHECK(!rep.ours_eof && !rep.theirs_eof);
    CHECK(rep.problem[0] == '\0');
    /* a line more than our engine writes, after the result */
    d.line = realloc(d.line, sizeof(char *) * (size_t)(d.n + 1));
    d.line[d.n - 1][strlen(d.line[d.n - 1]) - 8] = '\0';
    strcat(d.line[d.n - 1], "VILLAGER");
    char *dup = aw_xstrdup(d.line[d.n - 1]);
    d.line[d.n++] = dup;
    /* (a second result line: named as a line after the result) */
    CHECK_INT(replay_doc(&d, "\n", &rep), AW_REPLAY_UNUSABLE);
    CHECK_INT(rep.error_line, d.n);
    CHECK(strstr(rep.error, "after the result line") != NULL);
    test_lines_free(&d);
}

/* Random damage (bytes changed, deleted, inserted, lines cut) never crashes
 * the replay and always gives a verdict. */
static void random_damage(const char *path, int rounds)
{
    aw_error err;
    size_t len;
    char *text = aw_read_file(path, &len, &err);
    CHECK(text != NULL);
    if (!text)
        return;
    aw_rng rng;
    aw_rng_seed(&rng, 7);
    char *copy_buf = malloc(len + 64);
    int verdicts[3] = {0};
    for (int i = 0; i < rounds; i++) {
        memcpy(copy_buf, text, len);
        size_t n = len;
        int edits = 1 + (int)aw_rng_below(&rng, 3);
        for (int k = 0; k < edits && n > 0; k++) {
            size_t at = aw_rng_below(&rng, (uint32_t)n);
            switch (aw_rng_below(&rng, 4)) {
            case 0:
                copy_buf[at] = (char)aw_rng_below(&rng, 256);
                break;
            case 1:
                memmove(copy_buf + at, copy_buf + at + 1, n - at - 1);
                n--;
                break;
            case 2:
                memmove(copy_buf + at + 1, copy_buf + at, n - at);
                copy_buf[at] = ",0123456789\n"[aw_rng_below(&rng, 12)];
                n++;
                break;
            default:
                copy_buf[at] = (char)('0' + aw_rng_below(&rng, 10));
                break;
            }
        }
        aw_replay_report rep;
        int v = aw_replay(copy_buf, n, &rules, NULL, &rep, &err);
        CHECK(v >= 0 && v <= 2);
        if (v >= 0 && v <= 2)
            verdicts[v]++;
        if (v == AW_REPLAY_DIFFERS)
            CHECK(rep.diff_line > 0 || rep.problem[0]);
    }
    /* Most damage is caught one way or the other. */
    CHECK(verdicts[1] > 0 && verdicts[2] > 0);
    free(copy_buf);
    free(text);
}

int main(void)
{
    aw_error err;
    CHECK(aw_settings_preset(&rules, "aiwolf", 5, &err) == 0);
    int scale = getenv("AIWOLF_SANITIZED") ? 4 : 1;
    const char *logs[] = {FIX "tcp/5p_game1/game.log", FIX "tcp/5p_game6/game.log", FIX "tcp/15p_game1/game.log",
                          FIX "direct/5p/game000.log", FIX "direct/15p/game042.log", FIX "chaos/c000.log",
                          FIX "chaos/c123.log",        FIX "chaos/c394.log",         FIX "chaos/c399.log"};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++)
        mutate_log(logs[i]);
    /* and the talk move on every 20th chaos log */
    for (int i = 0; i < 400; i += 20 * scale) {
        char path[128];
        snprintf(path, sizeof path, FIX "chaos/c%03d.log", i);
        mutate_log(path);
    }
    printf("%d mutated copies reported as differing\n", mutations_tried);
    truncations(FIX "tcp/5p_game6/game.log");
    garbage();
    decided_at_start();
    last_line();
    random_damage(FIX "tcp/5p_game6/game.log", 2000 / scale);
    random_damage(FIX "chaos/c394.log", 400 / scale);
    return test_done();
}
