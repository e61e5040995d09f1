/* Every recorded official game log (tests/fixtures/official: 9 tcp, 200
 * direct and 400 chaos games) replays through our engine byte for byte under
 * the aiwolf preset, with every request answered from the log; the finished
 * edge games do too, and the broken ones are refused cleanly. Also: the
 * replay writes our CSV and the readable record when asked, and reports the
 * nights whose attack-vote rounds the log leaves open. Runs from the project
 * root. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logreplay.h"
#include "test.h"
#include "test_files.h"

#define FIX "tests/fixtures/official/"

static aw_settings rules;

static char *slurp(const char *path, size_t *len)
{
    aw_error err;
    char *text = aw_read_file(path, len, &err);
    CHECK_MSG(text != NULL, "%s", err.msg);
    return text;
}

static int replay_file(const char *path, const aw_replay_options *opt, aw_replay_report *rep)
{
    aw_error err;
    size_t len;
    char *text = slurp(path, &len);
    if (!text) {
        memset(rep, 0, sizeof *rep);
        return -1;
    }
    int v = aw_replay(text, len, &rules, opt, rep, &err);
    free(text);
    return v;
}

static int total, reproduced, ambiguous;

/* Replays every log in dir (dir/NAME.log, or dir/NAME/game.log). */
static int replay_dir(const char *dir, bool per_game_folder)
{
    char **names = NULL;
    int n = list_dir(dir, per_game_folder ? "" : ".log", &names), ok = 0;
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s%s", dir, names[i], per_game_folder ? "/game.log" : "");
        aw_replay_report rep;
        int v = replay_file(path, NULL, &rep);
        total++;
        if (v == AW_REPLAY_REPRODUCED && rep.ours_lines == rep.lines && rep.diff_line == 0 && !rep.problem[0] &&
            rep.lines > 0) {
            ok++;
            reproduced++;
            ambiguous += rep.ambiguous_nights;
        } else {
            CHECK_MSG(0, "%s: verdict %d, line %ld: ours \"%s\"%s, official \"%s\"%s; %s (line %ld) %s", path, v,
                      rep.diff_line, rep.ours, rep.ours_eof ? " (end)" : "", rep.theirs,
                      rep.theirs_eof ? " (end)" : "", rep.problem, rep.problem_line, rep.error);
        }
        free(names[i]);
    }
    free(names);
    return n;
}

static void official_logs(void)
{
    CHECK_INT(replay_dir(FIX "tcp", true), 9);
    CHECK_INT(replay_dir(FIX "direct/5p", false), 100);
    CHECK_INT(replay_dir(FIX "direct/15p", false), 100);
    CHECK_INT(replay_dir(FIX "chaos", false), 400);
    CHECK_INT(total, 609);
    CHECK_INT(reproduced, 609);
    printf("%d of %d official logs reproduced byte for byte (%d ambiguous attack-vote nights)\n", reproduced, total,
           ambiguous);
    /* Chaos games have nights where two groupings of the attack votes fit. */
    CHECK(ambiguous > 0);
}

static void edge_logs(void)
{
    aw_replay_report rep;
    static const char *const finished[] = {"15p_probe_invalid_talk_and_vote_formats",
                                           "5p_reply_to_no_reply_requests", "5p_role_request_werewolf"};
    for (size_t i = 0; i < sizeof finished / sizeof finished[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, FIX "edge/%s/game.log", finished[i]);
        CHECK_MSG(replay_file(path, NULL, &rep) == AW_REPLAY_REPRODUCED, "%s: line %ld: %s / %s / %s", path,
                  rep.diff_line, rep.ours, rep.theirs, rep.problem);
    }
    CHECK_INT(replay_file(FIX "edge/5p_role_reply_empty_line/game.log", NULL, &rep), AW_REPLAY_UNUSABLE);
    CHECK_INT(rep.error_line, 1);
    CHECK(strstr(rep.error, "empty log") != NULL);
    CHECK_INT(replay_file(FIX "edge/5p_talk_timeout/game.log", NULL, &rep), AW_REPLAY_UNUSABLE);
    CHECK_INT(rep.error_line, 7);
    CHECK(strstr(rep.error, "incomplete log") != NULL);
    CHECK_INT(replay_file(FIX "edge/5p_talk_because_one_clause/game.log", NULL, &rep), AW_REPLAY_UNUSABLE);
    CHECK_INT(rep.error_line, 7);
}

/* The night at line 436 of chaos/c394: attack votes 1->4, 5->3, 13->3 and
 * the attack on 3 fit one round (3 on top) and a tie 1->4, 5->3 followed by
 * a revote 13->3 alike. */
static void ambiguous_night(void)
{
    aw_replay_report rep;
    CHECK_INT(replay_file(FIX "chaos/c394.log", NULL, &rep), AW_REPLAY_REPRODUCED);
    CHECK_INT(rep.ambiguous_nights, 1);
    CHECK_INT(rep.ambiguous_line, 436);
    /* One werewolf, one vote: never ambiguous (an empty first round before
     * it would not show in the log either way). */
    CHECK_INT(replay_file(FIX "tcp/5p_game6/game.log", NULL, &rep), AW_REPLAY_REPRODUCED);
    CHECK_INT(rep.ambiguous_nights, 0);
}

/* Our CSV, the record and the events come out when asked. */
static void outputs(void)
{
    const char *path = FIX "tcp/5p_game6/game.log";
    size_t len;
    char *orig = slurp(path, &len);
    char *csv = NULL, *record = NULL, *events = NULL;
    size_t csvlen = 0, reclen = 0, evlen = 0;
    FILE *fc = open_memstream(&csv, &csvlen), *fr = open_memstream(&record, &reclen),
         *fe = open_memstream(&events, &evlen);
    aw_replay_options opt = {fr, fc, fe};
    aw_replay_report rep;
    aw_error err;
    CHECK_INT(aw_replay(orig, len, &rules, &opt, &rep, &err), AW_REPLAY_REPRODUCED);
    fclose(fc);
    fclose(fr);
    fclose(fe);
    CHECK(csvlen == len && memcmp(csv, orig, len) == 0);
    CHECK(strstr(record, "Game: 5 players, preset aiwolf") != NULL);
    CHECK(strstr(record, "Day 1\n") != NULL);
    CHECK(strstr(record, "is executed") != NULL);
    CHECK(strstr(record, "Result: VILLAGER wins") != NULL);
    CHECK(strstr(record, "SampleRoleAssignPlayer") != NULL);
    CHECK(strstr(events, "\"event\":\"begin\"") != NULL);
    CHECK_INT(rep.lines, rep.ours_lines);
    free(csv);
    free(record);
    free(events);
    free(orig);
    /* NULL arguments are an error of the call, not a verdict. */
    CHECK(aw_replay(NULL, 5, &rules, NULL, &rep, &err) < 0);
    CHECK(aw_replay("", 0, NULL, NULL, &rep, &err) < 0);
}

int main(void)
{
    aw_error err;
    CHECK(aw_settings_preset(&rules, "aiwolf", 5, &err) == 0);
    official_logs();
    edge_logs();
    ambiguous_night();
    outputs();
    return test_done();
}
