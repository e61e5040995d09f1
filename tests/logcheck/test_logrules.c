/* A log's rules beside it (logrules.h): the file's text read back into the
 * same settings for every preset and changed settings; what a rules file may
 * hold and the errors (with the line) for what it may not; which file a log
 * gets (LOG.rules before the folder's aiwolf.rules before a contest's
 * contest.cfg); a folder claimed once, other rules leaving it alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "logrules.h"
#include "test.h"

static void describe(const aw_settings *s, aw_buf *b)
{
    aw_buf_clear(b);
    aw_settings_describe(s, b);
}

static void test_roundtrip(void)
{
    const char *presets[] = {"aiwolf", "seed2015", "regulation"};
    const char *changes[] = {NULL, "max_talk=3", "invalid_guard=random", "validation=off"};
    aw_buf a, b, text;
    aw_buf_init(&a);
    aw_buf_init(&b);
    aw_buf_init(&text);
    for (int p = 0; p < 3; p++)
        for (int c = 0; c < 4; c++) {
            aw_settings s, back;
            aw_error err;
            CHECK_INT(aw_settings_preset(&s, presets[p], 5, &err), 0);
            if (changes[c])
                CHECK_INT(aw_settings_set(&s, changes[c], &err), 0);
            aw_buf_clear(&text);
            aw_logrules_format(&s, &text);
            CHECK(strstr(text.data, "players=") == NULL && strstr(text.data, "roles=") == NULL);
            CHECK_INT(aw_logrules_parse(text.data, text.len, &back, &err), 0);
            describe(&s, &a);
            describe(&back, &b);
            CHECK_MSG(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "%s with %s", presets[p],
                      changes[c] ? changes[c] : "nothing");
        }
    aw_buf_free(&a);
    aw_buf_free(&b);
    aw_buf_free(&text);
}

static void test_parse(void)
{
    aw_settings s;
    aw_error err;
    /* Comments, blank lines, CRLF, --list-settings' players and roles. */
    const char *ok = "# rules\r\n\r\npreset=seed2015\r\nplayers=15\nroles=SEER=1\nmax_revote=2\n";
    CHECK_INT(aw_logrules_parse(ok, strlen(ok), &s, &err), 0);
    CHECK_STR(s.preset, "seed2015");
    CHECK_INT(s.max_revote, 2);
    CHECK_INT(s.talk_mode, AW_TALK_ROUNDS);
    CHECK_INT(s.players, 5);
    /* Nothing: the aiwolf preset. */
    CHECK_INT(aw_logrules_parse("", 0, &s, &err), 0);
    CHECK_STR(s.preset, "aiwolf");
    /* Errors name the line. */
    const char *late = "max_talk=3\n# x\npreset=seed2015\n";
    CHECK(aw_logrules_parse(late, strlen(late), &s, &err) < 0);
    CHECK(strstr(err.msg, "line 3") != NULL);
    const char *unknown = "preset=aiwolf\nno_such_rule=1\n";
    CHECK(aw_logrules_parse(unknown, strlen(unknown), &s, &err) < 0);
    CHECK(strstr(err.msg, "line 2") != NULL);
    const char *badpreset = "preset=nope\n";
    CHECK(aw_logrules_parse(badpreset, strlen(badpreset), &s, &err) < 0);
    CHECK(strstr(err.msg, "line 1") != NULL);
    char nul[] = "preset=aiwolf\nmax_talk=3\0\n";
    CHECK(aw_logrules_parse(nul, sizeof nul - 1, &s, &err) < 0);
    char longline[600];
    memset(longline, 'x', sizeof longline);
    CHECK(aw_logrules_parse(longline, sizeof longline, &s, &err) < 0);
}

static void test_paths(void)
{
    char out[64];
    CHECK_INT(aw_logrules_path("a/b.log", out, sizeof out), 0);
    CHECK_STR(out, "a/b.log.rules");
    CHECK_INT(aw_logrules_path("a/b.log.gz", out, sizeof out), 0);
    CHECK_STR(out, "a/b.log.rules");
    CHECK_INT(aw_logrules_path("7.log.unfinished", out, sizeof out), 0);
    CHECK_STR(out, "7.log.rules");
    CHECK_INT(aw_logrules_path(".gz", out, sizeof out), 0);
    CHECK_STR(out, ".gz.rules");
    CHECK(aw_logrules_path("a-very-long-name-that-does-not-fit-in-sixty-four-bytes.log", out, sizeof out) < 0);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_files(void)
{
    char root[] = "/tmp/aw_logrules_XXXXXX";
    CHECK(mkdtemp(root) != NULL);
    char dir[128], logs[160], path[256], found[4096];
    snprintf(dir, sizeof dir, "%s/contest", root);
    snprintf(logs, sizeof logs, "%s/logs", dir);
    mkdir(dir, 0777);
    mkdir(logs, 0777);
    aw_settings seed, reg, got;
    aw_error err;
    aw_settings_preset(&seed, "seed2015", 5, &err);
    aw_settings_preset(&reg, "regulation", 5, &err);
    snprintf(path, sizeof path, "%s/000001.log.gz", logs);
    /* No rules anywhere; a contest.cfg that is not a contest's is no rules. */
    CHECK_INT(aw_logrules_find(path, &got, found, sizeof found, &err), 0);
    char cfg[192];
    snprintf(cfg, sizeof cfg, "%s/contest.cfg", dir);
    put(cfg, "something else\n");
    CHECK_INT(aw_logrules_find(path, &got, found, sizeof found, &err), 0);
    /* A contest's contest.cfg: its preset and set lines. */
    put(cfg, "aiwolf-contest\t1\nformat\tseed2015\npreset\tregulation\nset\tmax_revote=3\nentry\t0\ta\tb\n");
    CHECK_INT(aw_logrules_find(path, &got, found, sizeof found, &err), 1);
    CHECK_STR(got.preset, "regulation");
    CHECK_INT(got.max_revote, 3);
    CHECK(strstr(found, "contest.cfg") != NULL);
    /* The folder's file comes first: claimed once, the same rules again. */
    CHECK_INT(aw_logrules_claim_folder(logs, &seed, &err), 1);
    CHECK_INT(aw_logrules_claim_folder(logs, &seed, &err), 1);
    CHECK_INT(aw_logrules_find(path, &got, found, sizeof found, &err), 1);
    CHECK_STR(got.preset, "seed2015");
    CHECK(strstr(found, "/logs/aiwolf.rules") != NULL);
    /* Other rules leave the folder's file alone; the log's own file wins. */
    CHECK_INT(aw_logrules_claim_folder(logs, &reg, &err), 0);
    CHECK_INT(aw_logrules_beside(path, &reg, &err), 0);
    CHECK_INT(aw_logrules_find(path, &got, found, sizeof found, &err), 1);
    CHECK_STR(got.preset, "regulation");
    CHECK(strstr(found, "000001.log.rules") != NULL);
    /* Taken back: the folder's rules speak for the log again. */
    CHECK_INT(aw_logrules_beside(path, NULL, &err), 0);
    CHECK_INT(aw_logrules_beside(path, NULL, &err), 0); /* nothing to remove is fine */
    CHECK_INT(aw_logrules_find(path, &got, found, sizeof found, &err), 1);
    CHECK_STR(got.preset, "seed2015");
    /* A broken rules file is an error, not silence. */
    snprintf(path, sizeof path, "%s/000002.log", logs);
    char own[300];
    snprintf(own, sizeof own, "%s/000002.log.rules", logs);
    put(own, "preset=seed2015\nmax_talk=many\n");
    CHECK(aw_logrules_find(path, &got, found, sizeof found, &err) < 0);
    CHECK(strstr(err.msg, "000002.log.rules: line 2") != NULL);
    remove(own);
    snprintf(path, sizeof path, "rm -rf %s", root);
    CHECK_INT(system(path), 0);
}

int main(void)
{
    test_roundtrip();
    test_parse();
    test_paths();
    test_files();
    return test_done();
}
