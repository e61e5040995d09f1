/* test_protocol_official: every line of the two official fixture files
 * (tests/fixtures/official/) must get the official verdict in strict mode,
 * and valid probe lines must normalise to the official text. Lenient mode
 * must accept everything strict accepts. Uses protocol and jansson. */
#include <dirent.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "test.h"

static void probe(void)
{
    json_error_t je;
    FILE *f = fopen("tests/fixtures/official/content_validate_probe.jsonl", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        json_t *o = json_loads(line, 0, &je);
        CHECK(o != NULL);
        if (!o)
            continue;
        n++;
        const char *in = json_string_value(json_object_get(o, "input"));
        json_t *v = json_object_get(o, "validate");
        const char *norm = json_string_value(json_object_get(o, "normalized"));
        int official_valid = json_is_true(v);
        aw_error err = {0};
        aw_sentence *s = aw_protocol_parse(in, strlen(in), AW_VALIDATE_STRICT, &err);
        CHECK_MSG((s != NULL) == official_valid, "probe '%s': official %s, ours %s (%s)", in,
                  official_valid ? "valid" : "invalid", s ? "valid" : "invalid", s ? "" : err.msg);
        CHECK_INT(aw_protocol_validate(in, strlen(in), AW_VALIDATE_STRICT, NULL) == 0, official_valid);
        if (s && official_valid) {
            char *text = aw_protocol_to_string(s);
            CHECK_STR(text, norm);
            free(text);
        }
        aw_sentence_free(s);
        json_decref(o);
    }
    fclose(f);
    CHECK_INT(n, 60);
}

static void cases(void)
{
    json_error_t je;
    FILE *f = fopen("tests/fixtures/official/validator_cases.jsonl", "r");
    CHECK(f != NULL);
    if (!f)
        return;
    char line[8192];
    int n = 0, valid = 0, wrong = 0, escaped = 0;
    while (fgets(line, sizeof line, f)) {
        json_t *o = json_loads(line, 0, &je);
        CHECK(o != NULL);
        if (!o)
            continue;
        n++;
        const char *raw = json_string_value(json_object_get(o, "input"));
        /* Fixture quirk: in 371 lines the generator wrote the tab that ends
         * the input as the two characters backslash-t (the only escape in the
         * file). The official verdicts were taken with a real tab: with a
         * literal backslash none of the 79 "valid" ones could be valid. We
         * decode that one escape and check the literal form is invalid. */
        char in[8192];
        snprintf(in, sizeof in, "%s", raw);
        size_t il = strlen(in);
        if (il >= 2 && in[il - 2] == '\\' && in[il - 1] == 't') {
            CHECK_MSG(aw_protocol_validate(in, il, AW_VALIDATE_STRICT, NULL) < 0, "literal \\t accepted: '%s'", in);
            in[il - 2] = '\t';
            in[il - 1] = 0;
            escaped++;
        }
        const char *verdict = json_string_value(json_object_get(o, "official"));
        int official_valid = strcmp(verdict, "valid") == 0;
        valid += official_valid;
        aw_error err = {0};
        int rc = aw_protocol_validate(in, strlen(in), AW_VALIDATE_STRICT, &err);
        if ((rc == 0) != official_valid) {
            wrong++;
            CHECK_MSG(0, "case '%s': official %s, ours %s (%s)", in, verdict, rc == 0 ? "valid" : "invalid",
                      rc == 0 ? "" : err.msg);
        } else {
            test_checks++;
        }
        if (rc == 0) {
            /* Canonical text of a valid line must itself be valid and stable,
             * unless it is the official empty AND/OR ("AND "), which the
             * official library prints but does not accept back. */
            aw_sentence *s = aw_protocol_parse(in, strlen(in), AW_VALIDATE_STRICT, NULL);
            CHECK(s != NULL);
            char *t = aw_protocol_to_string(s);
            aw_sentence *s2 = aw_protocol_parse(t, strlen(t), AW_VALIDATE_STRICT, NULL);
            if (!strstr(t, " )") && t[strlen(t) - 1] != ' ' && !strstr(t, "  ")) {
                CHECK_MSG(s2 && aw_sentence_equal(s, s2), "'%s' -> '%s' does not parse back", in, t);
            }
            aw_sentence_free(s2);
            free(t);
            aw_sentence_free(s);
        }
        /* Lenient accepts everything strict accepts. */
        if (official_valid)
            CHECK_MSG(aw_protocol_validate(in, strlen(in), AW_VALIDATE_LENIENT, NULL) == 0, "lenient rejects '%s'", in);
        json_decref(o);
    }
    fclose(f);
    CHECK_INT(n, 5000);
    CHECK_INT(escaped, 371);
    printf("validator_cases: %d lines, %d officially valid, %d disagreements\n", n, valid, wrong);
}

/* The official server logs a talk only after Content.validate accepted it
 * (invalid ones are logged as Skip): every talk and whisper in the recorded
 * game logs must be strictly valid. */
static void game_logs(void)
{
    const char *dir = "tests/fixtures/official/tcp";
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d)
        return;
    int logs = 0, lines = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s/game.log", dir, e->d_name);
        FILE *f = fopen(path, "r");
        CHECK_MSG(f != NULL, "%s", path);
        if (!f)
            continue;
        logs++;
        char line[4096];
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            if (!strstr(line, ",talk,") && !strstr(line, ",whisper,"))
                continue;
            char *p = line;
            for (int commas = 0; *p && commas < 5; p++)
                if (*p == ',')
                    commas++;
            lines++;
            aw_error err = {0};
            int rc = aw_protocol_validate(p, strlen(p), AW_VALIDATE_STRICT, &err);
            CHECK_MSG(rc == 0, "%s: '%s': %s", path, p, err.msg);
        }
        fclose(f);
    }
    closedir(d);
    CHECK_INT(logs, 9);
    CHECK(lines > 1500);
    printf("game logs: %d logs, %d talk/whisper lines\n", logs, lines);
}

int main(void)
{
    probe();
    cases();
    game_logs();
    return test_done();
}
