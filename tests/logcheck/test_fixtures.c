/* Every recorded official log (tests/fixtures/official: tcp, direct, chaos)
 * checks legal under the aiwolf preset; the edge recordings get the verdicts
 * their README gives; and the checker holds up on damaged copies: every
 * proper prefix of a legal log is incomplete, every cut inside a line is not
 * legal, and random byte damage never crashes it. Runs from the project
 * root. */
#include <stdlib.h>
#include <string.h>

#include "logcheck.h"
#include "test.h"
#include "test_files.h"

#define FIX "tests/fixtures/official/"

static aw_settings rules;

static int check_text(const char *text, size_t len, aw_logcheck_report *rep)
{
    aw_error err;
    return aw_logcheck(text, len, &rules, NULL, rep, &err);
}

static int check_file(const char *path, aw_logcheck_report *rep)
{
    aw_error err;
    size_t len;
    char *text = aw_read_file(path, &len, &err);
    CHECK_MSG(text != NULL, "%s", err.msg);
    if (!text)
        return -1;
    int v = check_text(text, len, rep);
    free(text);
    return v;
}

/* Checks every log in dir (pattern: dir/NAME or dir/NAME/game.log) is legal. */
static int all_legal(const char *dir, bool per_game_folder)
{
    char **names = NULL;
    int n = list_dir(dir, per_game_folder ? "" : ".log", &names), legal = 0;
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s%s", dir, names[i], per_game_folder ? "/game.log" : "");
        aw_logcheck_report rep;
        int v = check_file(path, &rep);
        CHECK_MSG(v == AW_LOG_LEGAL, "%s:%ld: %s\n    %s", path, rep.line, rep.reason, rep.text);
        if (v == AW_LOG_LEGAL) {
            legal++;
            CHECK(rep.players >= 3 && rep.players <= 18);
            CHECK(rep.winner == AW_TEAM_VILLAGER || rep.winner == AW_TEAM_WEREWOLF);
        }
    }
    free_names(names, n);
    printf("%s: %d of %d logs legal\n", dir, legal, n);
    return legal;
}

static void edge(const char *game, int want, long want_line, const char *want_reason)
{
    char path[512];
    snprintf(path, sizeof path, FIX "edge/%s/game.log", game);
    aw_logcheck_report rep;
    int v = check_file(path, &rep);
    CHECK_MSG(v == want, "%s: verdict %d, want %d (%s)", game, v, want, rep.reason);
    if (want != AW_LOG_LEGAL) {
        CHECK_INT(rep.line, want_line);
        CHECK_MSG(strstr(rep.reason, want_reason) != NULL, "%s: reason '%s' lacks '%s'", game, rep.reason, want_reason);
    }
}

/* Damage tests on one legal log. */
static void damage(const char *path, unsigned seed)
{
    size_t len;
    aw_error err;
    char *text = aw_read_file(path, &len, &err);
    CHECK(text != NULL);
    if (!text)
        return;
    aw_logcheck_report rep;
    CHECK_INT(check_text(text, len, &rep), AW_LOG_LEGAL);
    /* Every proper prefix ending at a line end: incomplete, at the line after. */
    long lines = 0, bad_prefix = 0;
    for (size_t p = 0; p < len; p++) {
        if (text[p] != '\n' || p + 1 == len)
            continue;
        lines++;
        int v = check_text(text, p + 1, &rep);
        if (v != AW_LOG_INCOMPLETE || rep.line != lines + 1)
            bad_prefix++;
    }
    CHECK_MSG(bad_prefix == 0, "%s: %ld prefixes not reported incomplete at their end", path, bad_prefix);
    /* Cuts inside lines: never legal. */
    long legal_cuts = 0;
    for (size_t p = 1; p + 1 < len; p += 7)
        if (text[p - 1] != '\n' && check_text(text, p, &rep) == AW_LOG_LEGAL)
            legal_cuts++;
    CHECK_MSG(legal_cuts == 0, "%s: %ld mid-line cuts checked legal", path, legal_cuts);
    /* Random damage: the verdict is one of the three and a bad line is named. */
    char *copy = aw_xmalloc(len + 1);
    unsigned x = seed;
    for (int round = 0; round < 300; round++) {
        memcpy(copy, text, len);
        int edits = 1 + round % 4;
        for (int k = 0; k < edits; k++) {
            x = x * 1103515245u + 12345u;
            size_t at = (x >> 8) % len;
            x = x * 1103515245u + 12345u;
            static const char junk[] = {',', '\n', '0', '9', '-', '\0', '\r', 'A', (char)0xff, ' '};
            copy[at] = (round & 1) ? junk[(x >> 8) % sizeof junk] : (char)(x >> 16);
        }
        int v = check_text(copy, len, &rep);
        CHECK(v >= AW_LOG_LEGAL && v <= AW_LOG_INCOMPLETE);
        if (v != AW_LOG_LEGAL)
            CHECK(rep.line >= 1 && rep.reason[0]);
    }
    free(copy);
    free(text);
}

int main(void)
{
    aw_error err;
    CHECK_INT(aw_settings_preset(&rules, "aiwolf", 5, &err), 0);

    CHECK_INT(all_legal(FIX "tcp", true), 9);
    CHECK_INT(all_legal(FIX "direct/5p", false), 100);
    CHECK_INT(all_legal(FIX "direct/15p", false), 100);
    CHECK_INT(all_legal(FIX "chaos", false), 400);

    edge("15p_probe_invalid_talk_and_vote_formats", AW_LOG_LEGAL, 0, NULL);
    edge("5p_reply_to_no_reply_requests", AW_LOG_LEGAL, 0, NULL);
    edge("5p_role_request_werewolf", AW_LOG_LEGAL, 0, NULL);
    edge("5p_role_reply_empty_line", AW_LOG_INCOMPLETE, 1, "empty log");
    edge("5p_talk_because_one_clause", AW_LOG_INCOMPLETE, 7, "incomplete log");
    edge("5p_talk_timeout", AW_LOG_INCOMPLETE, 7, "incomplete log");

    damage(FIX "tcp/5p_game6/game.log", 1);
    damage(FIX "tcp/15p_game2/game.log", 2);
    damage(FIX "chaos/c007.log", 3);
    return test_done();
}
