/* Mutation tests: take a legal official log, make one targeted edit (replace,
 * delete or insert a line; each edit names the line it expects to find, so a
 * changed fixture fails loudly), and check that the result is reported
 * illegal at the right line with a sensible reason. Runs from the project
 * root. */
#include <stdlib.h>
#include <string.h>

#include "logcheck.h"
#include "test.h"
#include "test_lines.h"

#define FIX "tests/fixtures/official/"
#define G6 FIX "tcp/5p_game6/game.log"    /* 5 players; seer executed day 1, wolf day 2 */
#define G15A FIX "tcp/15p_game1/game.log" /* guarded attacks */
#define G15B FIX "tcp/15p_game2/game.log" /* attack revotes */
#define C000 FIX "chaos/c000.log"         /* 15 players, long talk */

typedef enum { REPLACE, DELETE, INSERT_AFTER, TRUNCATE } op_kind;

typedef struct mutation {
    const char *name;
    const char *path;
    op_kind op;
    long lineno;        /* the line edited (1-based) */
    const char *expect; /* what that line holds before the edit (prefix) */
    const char *text;   /* the new line (REPLACE, INSERT_AFTER) */
    long want_line;     /* where the checker must report */
    const char *want;   /* a phrase the reason must contain */
    int want_verdict;   /* 0: illegal */
    const char *set;    /* an optional --set on top of the aiwolf preset */
} mutation;

static const mutation mutations[] = {
    {"vote for a dead agent", G6, REPLACE, 80, "2,vote,3,4", "2,vote,3,1", 80, "who is dead", 0, NULL},
    {"self-vote", G6, REPLACE, 37, "1,vote,1,4", "1,vote,1,1", 37, "votes for itself", 0, NULL},
    {"vote by a dead agent", G6, REPLACE, 80, "2,vote,3,4", "2,vote,1,4", 80, "dead", 0, NULL},
    {"a second vote in one round", G6, REPLACE, 38, "1,vote,2,3", "1,vote,1,4", 38, "out of order", 0, NULL},
    {"missing vote", G6, DELETE, 39, "1,vote,3,5", NULL, 39, "agent 3 did not vote", 0, NULL},
    {"execution not the top vote", G6, REPLACE, 42, "1,execute,1,SEER", "1,execute,4,WEREWOLF", 42,
     "agent 1 had the most votes", 0, NULL},
    {"execution with the wrong role", G6, REPLACE, 42, "1,execute,1,SEER", "1,execute,1,VILLAGER", 42,
     "agent 1 is a SEER", 0, NULL},
    {"missing execution", G6, DELETE, 42, "1,execute,1,SEER", NULL, 42, "expected the execution of agent 1", 0, NULL},
    {"revote without a tie", G6, INSERT_AFTER, 41, "1,vote,5,1", "1,vote,1,4", 42, "only after a tie", 0, NULL},
    {"wrong winner", G6, REPLACE, 89, "3,result,2,0,VILLAGER", "3,result,2,0,WEREWOLF", 89, "winner is VILLAGER", 0,
     NULL},
    {"wrong human count", G6, REPLACE, 89, "3,result,2,0,VILLAGER", "3,result,3,0,VILLAGER", 89,
     "counts 3 living humans, but 2", 0, NULL},
    {"wrong werewolf count", G6, REPLACE, 89, "3,result,2,0,VILLAGER", "3,result,2,1,VILLAGER", 89, "living werewolves",
     0, NULL},
    {"result on the wrong day", G6, REPLACE, 89, "3,result,2,0,VILLAGER", "2,result,2,0,VILLAGER", 89,
     "day of the last status block", 0, NULL},
    {"result before the game is over", G6, INSERT_AFTER, 49, "2,status,5,", "2,result,2,1,VILLAGER", 50,
     "the game is not over", 0, NULL},
    {"line after the result", G6, INSERT_AFTER, 89, "3,result", "3,talk,0,0,3,Over", 90, "after the result line", 0,
     NULL},
    {"dead agent talks", G6, REPLACE, 50, "2,talk,0,0,4,", "2,talk,0,0,1,COMINGOUT Agent[01] SEER", 50,
     "agent 1 talks but is dead", 0, NULL},
    {"wrong talk idx", G6, REPLACE, 50, "2,talk,0,0,4,", "2,talk,5,0,4,COMINGOUT Agent[04] SEER", 50,
     "talk idx 5, expected 0", 0, NULL},
    {"talk after all-Over", G6, INSERT_AFTER, 36, "1,talk,24,4,3,Over", "1,talk,25,5,3,Over", 37,
     "after the talk ended (turn 4 was all Over)", 0, NULL},
    {"talk stops before all-Over", G6, REPLACE, 36, "1,talk,24,4,3,Over", "1,talk,24,4,3,VOTE Agent[04]", 37,
     "the talk goes on", 0, NULL},
    {"incomplete talk turn", G6, DELETE, 36, "1,talk,24,4,3,Over", NULL, 36, "turn 4 of the talk is incomplete: 3", 0,
     NULL},
    {"agent talks twice in a turn", G6, REPLACE, 36, "1,talk,24,4,3,Over", "1,talk,24,4,5,Over", 36,
     "agent 5 talks twice in turn 4", 0, NULL},
    {"Skip that should have become Over", G6, REPLACE, 36, "1,talk,24,4,3,Over", "1,talk,24,4,3,Skip", 36,
     "must be logged as Over", 0, NULL},
    {"Skip that should have become Over (after an Over)", C000, REPLACE, 105, "1,talk,28,2,11,Over",
     "1,talk,28,2,11,Skip", 105, "must be logged as Over", 0, NULL},
    {"an 11th real talk", C000, REPLACE, 198, "1,talk,121,10,5,Over", "1,talk,121,10,5,VOTE Agent[01]", 198,
     "used all its 10 talks", 0, NULL},
    {"empty talk text", G6, REPLACE, 36, "1,talk,24,4,3,Over", "1,talk,24,4,3,", 36, "empty talk text", 0, NULL},
    {"talk before the day's status block", G6, REPLACE, 7, "1,status,1,", "1,talk,0,0,1,Over", 7,
     "expected the status block of day 1", 0, NULL},
    {"whisper by a villager", G15A, REPLACE, 16, "0,whisper,0,0,11,", "0,whisper,0,0,3,COMINGOUT Agent[03] SEER", 16,
     "only the living werewolves whisper", 0, NULL},
    {"whisper by a lone werewolf", G6, INSERT_AFTER, 42, "1,execute,1,SEER", "1,whisper,0,0,4,Over", 43,
     "a lone werewolf does not whisper", 0, NULL},
    {"divine with the wrong species", G6, REPLACE, 6, "0,divine,1,3,HUMAN", "0,divine,1,3,WEREWOLF", 6,
     "divine result is WEREWOLF, but agent 3 is a VILLAGER", 0, NULL},
    {"divine of the possessed as WEREWOLF", G6, REPLACE, 6, "0,divine,1,3,HUMAN", "0,divine,1,5,WEREWOLF", 6,
     "agent 5 is a POSSESSED (HUMAN)", 0, NULL},
    {"divine by a non-seer", G6, REPLACE, 6, "0,divine,1,3,HUMAN", "0,divine,2,3,HUMAN", 6, "only the seer divines", 0,
     NULL},
    {"divine by the executed seer", G6, INSERT_AFTER, 42, "1,execute,1,SEER", "1,divine,1,3,HUMAN", 43,
     "seer 1 divines but is dead (executed on day 1)", 0, NULL},
    {"divine of the agent executed that day", C000, REPLACE, 342, "1,divine,2,2,HUMAN", "1,divine,2,1,HUMAN", 342,
     "divines agent 1, who is dead", 0, NULL},
    {"guard on self", G15A, REPLACE, 249, "1,guard,4,11,WEREWOLF", "1,guard,4,4,BODYGUARD", 249, "guards itself", 0,
     NULL},
    {"guard with the wrong role", G15A, REPLACE, 249, "1,guard,4,11,WEREWOLF", "1,guard,4,11,VILLAGER", 249,
     "agent 11 is a WEREWOLF", 0, NULL},
    {"guard by a non-bodyguard", G15A, REPLACE, 249, "1,guard,4,11,WEREWOLF", "1,guard,3,11,WEREWOLF", 249,
     "only the bodyguard guards", 0, NULL},
    {"attack while guarded logged as true", G15A, REPLACE, 439, "2,attack,13,false", "2,attack,13,true", 439,
     "is guarded tonight", 0, NULL},
    {"unguarded attack logged as false", G6, REPLACE, 44, "1,attack,2,true", "1,attack,2,false", 44,
     "nobody guarded agent 2", 0, NULL},
    {"attack on a werewolf", G6, REPLACE, 44, "1,attack,2,true", "1,attack,4,true", 44, "a werewolf, is attacked", 0,
     NULL},
    {"attack not the top", G6, REPLACE, 44, "1,attack,2,true", "1,attack,3,true", 44,
     "agent 2 had the most attack votes", 0, NULL},
    {"attack on a dead agent", G6, REPLACE, 44, "1,attack,2,true", "1,attack,1,true", 44, "is dead", 0, NULL},
    {"no attack although compulsory", G6, REPLACE, 44, "1,attack,2,true", "1,attack,-1,false", 44,
     "attacks are compulsory", 0, NULL},
    {"missing attack", G6, DELETE, 44, "1,attack,2,true", NULL, 44, "expected the attack of night 1", 0, NULL},
    {"attack vote by a non-werewolf", G15B, REPLACE, 543, "3,attackVote,9,12", "3,attackVote,1,12", 543,
     "only werewolves vote to attack", 0, NULL},
    {"attack vote for a werewolf", G15B, REPLACE, 543, "3,attackVote,9,12", "3,attackVote,9,13", 543,
     "a werewolf (such a vote is dropped", 0, NULL},
    {"attack revote without a tie", G15B, INSERT_AFTER, 544, "3,attackVote,13,12", "3,attackVote,9,12", 545,
     "revote happens only after a tie", 0, NULL},
    {"a third attack vote round", G15B, INSERT_AFTER, 627, "4,attackVote,13,14", "4,attackVote,9,6", 628,
     "more attack votes than 2 werewolves can cast in 2 rounds", 0, NULL},
    {"attack outside the final tie", G15B, REPLACE, 628, "4,attack,14,true", "4,attack,1,true", 628,
     "the last attack vote round was a tie among agents 6 and 14", 0, NULL},
    {"status DEAD without a death", G6, REPLACE, 47, "2,status,3,VILLAGER,ALIVE",
     "2,status,3,VILLAGER,DEAD,SampleRoleAssignPlayer", 47, "shown DEAD but is alive", 0, NULL},
    {"status ALIVE after execution", G6, REPLACE, 45, "2,status,1,SEER,DEAD",
     "2,status,1,SEER,ALIVE,SampleRoleAssignPlayer", 45, "shown ALIVE but died (executed on day 1)", 0, NULL},
    {"role changes", G6, REPLACE, 47, "2,status,3,VILLAGER,ALIVE", "2,status,3,SEER,ALIVE,SampleRoleAssignPlayer", 47,
     "role changes from VILLAGER", 0, NULL},
    {"wrong day number", G6, REPLACE, 80, "2,vote,3,4", "3,vote,3,4", 80, "day 3 during day 2", 0, NULL},
    {"malformed number", G6, REPLACE, 80, "2,vote,3,4", "2,vote,3,99999999999", 80, "not an agent number", 0, NULL},
    {"missing field", G6, REPLACE, 80, "2,vote,3,4", "2,vote,3", 80, "has 4 fields", 0, NULL},
    {"unknown line type", G6, REPLACE, 80, "2,vote,3,4", "2,banish,3,VILLAGER", 80, "unknown line type", 0, NULL},
    {"truncated log", G6, TRUNCATE, 84, "3,status", NULL, 84, "incomplete log", AW_LOG_INCOMPLETE, NULL},
    {"guard on a dead agent when such guards do nothing", C000, REPLACE, 802, "3,guard,8,2,SEER", NULL, 802,
     "guard_dead_target=false", 0, "guard_dead_target=false"},
    {"attack vote dropped when every vote must count", C000, REPLACE, 378, "1,attack,4,true", NULL, 378,
     "werewolf 9 cast no attack vote", 0, "invalid_attack=random"},
};

static int check(const char *text, size_t len, const char *set, aw_logcheck_report *rep)
{
    aw_settings s;
    aw_error err;
    aw_settings_preset(&s, "aiwolf", 5, &err);
    if (set)
        CHECK_INT(aw_settings_set(&s, set, &err), 0);
    return aw_logcheck(text, len, &s, NULL, rep, &err);
}

static void run(const mutation *m)
{
    aw_error err;
    size_t len;
    char *text = aw_read_file(m->path, &len, &err);
    CHECK_MSG(text != NULL, "%s", err.msg);
    if (!text)
        return;
    aw_logcheck_report rep;
    CHECK_MSG(check(text, len, NULL, &rep) == AW_LOG_LEGAL, "%s: the unmutated log is not legal", m->name);
    test_lines L = test_lines_split(text);

    long i = m->lineno - 1;
    CHECK_MSG(i >= 0 && i < L.n && strncmp(L.line[i], m->expect, strlen(m->expect)) == 0,
              "%s: line %ld of %s is '%s', expected '%s...'", m->name, m->lineno, m->path, i < L.n ? L.line[i] : "",
              m->expect);
    if (i < 0 || i >= L.n)
        goto out;
    if (m->set) {
        /* No edit: the log itself, under a changed setting, must fail at the
         * first line the setting forbids. */
        int v = check(text, len, m->set, &rep);
        CHECK_MSG(v == AW_LOG_ILLEGAL, "%s: verdict %d under %s", m->name, v, m->set);
        CHECK_MSG(rep.line == m->want_line, "%s: reported at line %ld, want %ld (%s)", m->name, rep.line, m->want_line,
                  rep.reason);
        CHECK_MSG(strstr(rep.reason, m->want) != NULL, "%s: reason '%s' lacks '%s'", m->name, rep.reason, m->want);
        printf("%-55s -> line %ld: %s\n", m->name, rep.line, rep.reason);
        goto out;
    }
    switch (m->op) {
    case REPLACE:
        free(L.line[i]);
        L.line[i] = aw_xstrdup(m->text);
        break;
    case DELETE:
        free(L.line[i]);
        memmove(&L.line[i], &L.line[i + 1], (size_t)(L.n - i - 1) * sizeof *L.line);
        L.n--;
        break;
    case INSERT_AFTER:
        L.line = realloc(L.line, (size_t)(L.n + 1) * sizeof *L.line);
        memmove(&L.line[i + 2], &L.line[i + 1], (size_t)(L.n - i - 1) * sizeof *L.line);
        L.line[i + 1] = aw_xstrdup(m->text);
        L.n++;
        break;
    case TRUNCATE:
        for (long k = i; k < L.n; k++)
            free(L.line[k]);
        L.n = i;
        break;
    }
    size_t mlen;
    char *mutated = test_lines_join(&L, "\n", &mlen);
    int v = check(mutated, mlen, NULL, &rep);
    free(mutated);
    int want = m->want_verdict ? m->want_verdict : AW_LOG_ILLEGAL;
    CHECK_MSG(v == want, "%s: verdict %d, want %d (%s)", m->name, v, want, rep.reason);
    CHECK_MSG(rep.line == m->want_line, "%s: reported at line %ld, want %ld (%s)", m->name, rep.line, m->want_line,
              rep.reason);
    CHECK_MSG(strstr(rep.reason, m->want) != NULL, "%s: reason '%s' lacks '%s'", m->name, rep.reason, m->want);
    printf("%-55s -> line %ld: %s\n", m->name, rep.line, rep.reason);
out:
    test_lines_free(&L);
    free(text);
}

int main(void)
{
    for (size_t i = 0; i < sizeof mutations / sizeof mutations[0]; i++)
        run(&mutations[i]);
    printf("%zu mutations\n", sizeof mutations / sizeof mutations[0]);
    return test_done();
}
