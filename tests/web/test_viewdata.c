/* test_viewdata: game files as the pages' JSON (runtime/web/viewdata.h).
 * Every recorded official log (direct and the 400 erratic chaos games) gives
 * valid JSON (jansson reads it back) whose events match the log line for
 * line: as many events as lines, talks with their text and, for valid
 * protocol, a description in both languages. Hostile input: garbage, a
 * damaged or oversized gzip, lines that do not parse, an events file with
 * bad lines, a missing file: valid JSON with the problem in it. */
#include <dirent.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gzlog.h"
#include "test.h"
#include "util.h"
#include "viewdata.h"

static json_t *game_json(const char *path)
{
    aw_buf out;
    aw_buf_init(&out);
    aw_view_game_json(path, "x", &out);
    json_error_t je;
    json_t *j = json_loadb(out.data, out.len, 0, &je);
    CHECK_MSG(j != NULL, "%s: not JSON: %s", path, je.text);
    aw_buf_free(&out);
    return j;
}

static long count_lines(const char *path, long *talks)
{
    size_t len = 0;
    char *text = aw_read_file(path, &len, NULL);
    long n = 0;
    *talks = 0;
    for (char *p = text; p && *p;) {
        char *nl = strchr(p, '\n');
        size_t k = nl ? (size_t)(nl - p) : strlen(p);
        if (k > 0 && !(k == 1 && p[0] == '\r')) {
            n++;
            char *c1 = memchr(p, ',', k);
            if (c1 && (strncmp(c1 + 1, "talk,", 5) == 0 || strncmp(c1 + 1, "whisper,", 8) == 0))
                (*talks)++;
        }
        p = nl ? nl + 1 : p + k;
    }
    free(text);
    return n;
}

/* Every log in dir (recursively one level: dir/NAME or dir/NAME/game.log). */
static int check_dir(const char *dir, bool strict)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t n = strlen(e->d_name);
        if (n < 4 || strcmp(e->d_name + n - 4, ".log") != 0)
            continue;
        files++;
        json_t *j = game_json(path);
        if (!j)
            continue;
        long talks = 0, lines = count_lines(path, &talks);
        json_t *events = json_object_get(j, "events");
        long problems = (long)json_integer_value(json_object_get(j, "problem_count"));
        CHECK_MSG(json_is_array(events), "%s: no events", path);
        size_t nev = json_array_size(events);
        long begins = 0, ntalks = 0, described = 0;
        for (size_t i = 0; i < nev; i++) {
            json_t *ev = json_array_get(events, i);
            const char *kind = json_string_value(json_object_get(ev, "event"));
            CHECK(kind != NULL);
            if (kind && strcmp(kind, "begin") == 0)
                begins++;
            if (kind && (strcmp(kind, "talk") == 0 || strcmp(kind, "whisper") == 0)) {
                ntalks++;
                CHECK(json_is_string(json_object_get(ev, "text")));
                if (json_object_get(ev, "en")) {
                    described++;
                    CHECK(json_is_string(json_object_get(ev, "ja")));
                }
            }
        }
        /* one event per line that parses, plus the begin */
        CHECK_MSG((long)nev == lines - problems + begins, "%s: %zu events for %ld lines (%ld problems)", path, nev,
                  lines, problems);
        CHECK_MSG(begins == 1, "%s: %ld begin events", path, begins);
        if (strict) {
            CHECK_MSG(problems == 0, "%s: %ld problems", path, problems);
            CHECK_MSG(ntalks == talks, "%s: %ld talks of %ld", path, ntalks, talks);
            CHECK_MSG(described == talks, "%s: %ld of %ld talks described", path, described, talks);
        }
        json_decref(j);
    }
    closedir(d);
    return files;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
}

static void check_error(const char *path, const char *want)
{
    json_t *j = game_json(path);
    const char *err = j ? json_string_value(json_object_get(j, "error")) : NULL;
    CHECK_MSG(err && strstr(err, want), "%s: error %s, wanted %s", path, err ? err : "(none)", want);
    json_decref(j);
}

int main(void)
{
    int n = check_dir("tests/fixtures/official/direct/5p", true) + check_dir("tests/fixtures/official/direct/15p", true);
    CHECK_MSG(n >= 100, "only %d official logs", n);
    n = check_dir("tests/fixtures/official/chaos", false);
    CHECK_MSG(n >= 100, "only %d chaos logs", n);

    char dir[] = "/tmp/test_viewdata.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char p[512];
    /* garbage: valid JSON, every line a problem, no events */
    snprintf(p, sizeof p, "%s/garbage.log", dir);
    write_file(p, "\x01\x02\xff\"\\\n1,talk,x\nhello\n", 17);
    json_t *j = game_json(p);
    CHECK_INT(json_integer_value(json_object_get(j, "problem_count")), 3);
    CHECK_INT(json_array_size(json_object_get(j, "events")), 0);
    json_decref(j);
    /* a damaged gzip, a missing file, a folder */
    snprintf(p, sizeof p, "%s/bad.log.gz", dir);
    write_file(p, "\x1f\x8b\x08\x00garbage", 11);
    check_error(p, "gzip");
    snprintf(p, sizeof p, "%s/none.log", dir);
    check_error(p, "cannot read");
    check_error(dir, "not a file");
    /* an events file: kept as text, bad lines included; talks described by line */
    snprintf(p, sizeof p, "%s/e.jsonl", dir);
    const char *ev = "{\"game\":0,\"day\":1,\"event\":\"talk\",\"idx\":0,\"turn\":0,\"agent\":2,\"text\":\"VOTE Agent[03]\"}\n"
                     "not json\n"
                     "{\"game\":0,\"day\":1,\"event\":\"whisper\",\"idx\":0,\"turn\":0,\"agent\":1,\"text\":\"ATTACK Agent[0\\u0033]\"}\n"
                     "{\"event\":\"talk\",\"text\":\"\\ud800\\\"\",\"agent\":1}\n";
    write_file(p, ev, strlen(ev));
    j = game_json(p);
    CHECK_STR(json_string_value(json_object_get(j, "source")), "events");
    CHECK_STR(json_string_value(json_object_get(j, "jsonl")), ev);
    json_t *said = json_object_get(j, "said");
    CHECK_STR(json_string_value(json_object_get(json_object_get(said, "0"), "en")), "Agent[02] will vote for Agent[03]");
    CHECK(json_object_get(said, "2") != NULL);
    CHECK(json_object_get(said, "1") == NULL && json_object_get(said, "3") == NULL);
    json_decref(j);
    /* a log that is gzip-compressed reads as the log */
    snprintf(p, sizeof p, "%s/g.log.gz", dir);
    FILE *gz = aw_gzlog_open_write(p, NULL);
    CHECK(gz != NULL);
    fputs("0,status,1,SEER,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n1,talk,0,0,1,COMINGOUT Agent[01] SEER\n", gz);
    fclose(gz);
    j = game_json(p);
    CHECK_INT(json_array_size(json_object_get(j, "events")), 4);
    json_decref(j);
    /* an abandoned game's log: its error line is an event, its result says abandoned */
    snprintf(p, sizeof p, "%s/abandoned.log", dir);
    const char *ab = "0,status,1,SEER,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n0,status,3,VILLAGER,ALIVE,c\n"
                     "0,error,3\n0,status,1,SEER,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n0,status,3,VILLAGER,ALIVE,c\n"
                     "0,result,2,1,NONE\n";
    write_file(p, ab, strlen(ab));
    j = game_json(p);
    json_t *evs = json_object_get(j, "events");
    CHECK_INT(json_array_size(evs), 9); /* begin, 6 status, error, result */
    json_t *e3 = json_array_get(evs, 4);
    CHECK_STR(json_string_value(json_object_get(e3, "event")), "error");
    CHECK_INT(json_integer_value(json_object_get(e3, "agent")), 3);
    json_t *res = json_array_get(evs, 8);
    CHECK_STR(json_string_value(json_object_get(res, "winner")), "NONE");
    CHECK(json_is_true(json_object_get(res, "abandoned")));
    json_decref(j);
    /* a gzip bomb: a small file that inflates past the limit is an error */
    snprintf(p, sizeof p, "%s/bomb.log.gz", dir);
    char bomb[700];
    snprintf(bomb, sizeof bomb, "head -c %u /dev/zero | gzip -1 > %s", AW_VIEW_MAX_FILE + 1u, p);
    CHECK(system(bomb) == 0);
    check_error(p, "inflates to more than");
    /* a contest game's faults file: each line an object, the message the
     * rest of the line (tabs and all); a line of another shape kept whole
     * as agent 0's message; hostile bytes stay valid JSON; no file: [] */
    snprintf(p, sizeof p, "%s/000001.faults", dir);
    const char *notes = "Agent[03]\tgamma\tTALK\terror\ttalk(): boom\tand a tab \x1b[2J \xff\n"
                        "Agent[03]\tgamma\t-\t-\t(further faults of this seat are only counted)\n"
                        "\n"
                        "Agent[3]\tnot\tthe shape\n"
                        "Agent[99]\te\tVOTE\ttimeout\t\n";
    write_file(p, notes, strlen(notes));
    aw_buf fb;
    aw_buf_init(&fb);
    aw_buf_addc(&fb, '{');
    aw_view_faults_json(p, &fb);
    aw_buf_addc(&fb, '}');
    json_error_t je;
    fb.data[1] = ' '; /* "{," + members + "}": one object */
    j = json_loadb(fb.data, fb.len, 0, &je);
    CHECK_MSG(j != NULL, "faults: not JSON: %s", je.text);
    json_t *fa = json_object_get(j, "faults");
    CHECK_INT(json_array_size(fa), 4);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(fa, 0), "agent")), 3);
    CHECK_STR(json_string_value(json_object_get(json_array_get(fa, 0), "entry")), "gamma");
    CHECK_STR(json_string_value(json_object_get(json_array_get(fa, 0), "request")), "TALK");
    CHECK_STR(json_string_value(json_object_get(json_array_get(fa, 0), "kind")), "error");
    const char *m0 = json_string_value(json_object_get(json_array_get(fa, 0), "message"));
    CHECK(m0 && strncmp(m0, "talk(): boom\tand a tab \x1b[2J ", 26) == 0);
    CHECK_INT(json_integer_value(json_object_get(json_array_get(fa, 2), "agent")), 0);
    CHECK_STR(json_string_value(json_object_get(json_array_get(fa, 2), "message")), "Agent[3]\tnot\tthe shape");
    CHECK_INT(json_integer_value(json_object_get(json_array_get(fa, 3), "agent")), 99);
    CHECK_STR(json_string_value(json_object_get(json_array_get(fa, 3), "message")), "");
    json_decref(j);
    aw_buf_clear(&fb);
    snprintf(p, sizeof p, "%s/none.faults", dir);
    aw_view_faults_json(p, &fb);
    CHECK_STR(fb.data, ",\"faults\":[]");
    aw_buf_free(&fb);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return test_done();
}
