/* Small hand-written logs for the rules that the official recordings never
 * show: the seed2015 preset (talk in rounds with whispers after a round, no
 * revotes, every seat acts every night) and the regulation preset (talk also
 * ends after three turns with nothing but Skip and Over). Each log is checked
 * under the presets it is legal for and the ones it breaks. */
#include <string.h>

#include "logcheck.h"
#include "test.h"

static int check_as(const char *preset, const char *set, const char *log, aw_logcheck_report *rep)
{
    aw_settings s;
    aw_error err;
    CHECK_INT(aw_settings_preset(&s, preset, 5, &err), 0);
    /* set: one or more "name=value" separated by ';' */
    char buf[256];
    snprintf(buf, sizeof buf, "%s", set ? set : "");
    for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";"))
        CHECK_INT(aw_settings_set(&s, tok, &err), 0);
    return aw_logcheck(log, strlen(log), &s, NULL, rep, &err);
}

#define LEGAL(preset, set, log)                                                                                      \
    do {                                                                                                             \
        aw_logcheck_report r_;                                                                                       \
        int v_ = check_as(preset, set, log, &r_);                                                                    \
        CHECK_MSG(v_ == AW_LOG_LEGAL, "%s: %s is not legal under %s: line %ld: %s", __func__, #log, preset, r_.line, \
                  r_.reason);                                                                                        \
    } while (0)

#define ILLEGAL(preset, set, log, line_, phrase)                                                                \
    do {                                                                                                        \
        aw_logcheck_report r_;                                                                                  \
        int v_ = check_as(preset, set, log, &r_);                                                               \
        CHECK_MSG(v_ == AW_LOG_ILLEGAL && r_.line == (line_) && strstr(r_.reason, phrase),                      \
                  "%s: %s under %s: verdict %d at line %ld (%s), want illegal at %d with '%s'", __func__, #log, \
                  preset, v_, r_.line, r_.reason, (int)(line_), phrase);                                        \
        printf("%-10s %-22s line %ld: %s\n", preset, #log, r_.line, r_.reason);                                 \
    } while (0)

/* Three players: the seer (1), the werewolf (2), a villager (3). The
 * werewolf is executed on day 1. */
#define HEAD3                       \
    "0,status,1,SEER,ALIVE,a\n"     \
    "0,status,2,WEREWOLF,ALIVE,b\n" \
    "0,status,3,VILLAGER,ALIVE,c\n" \
    "0,divine,1,3,HUMAN\n"          \
    "1,status,1,SEER,ALIVE,a\n"     \
    "1,status,2,WEREWOLF,ALIVE,b\n" \
    "1,status,3,VILLAGER,ALIVE,c\n"
#define TAIL3                       \
    "1,divine,1,3,HUMAN\n"          \
    "2,status,1,SEER,ALIVE,a\n"     \
    "2,status,2,WEREWOLF,DEAD,b\n"  \
    "2,status,3,VILLAGER,ALIVE,c\n" \
    "2,result,2,0,VILLAGER\n"
#define OVER3 "1,talk,0,0,2,Over\n1,talk,1,0,1,Over\n1,talk,2,0,3,Over\n"
#define VOTES3 "1,vote,1,2\n1,vote,2,1\n1,vote,3,2\n1,execute,2,WEREWOLF\n"

static const char simple3[] = HEAD3 OVER3 VOTES3 TAIL3;

/* A tie in the first vote round, then a revote. */
static const char revote3[] = HEAD3 OVER3 "1,vote,1,2\n1,vote,2,3\n1,vote,3,1\n" VOTES3 TAIL3;

/* Three quiet turns that are not all Over: turn 0 all Skip; turn 1 agent 1
 * says Over, the others Skip; turn 2 agent 1 Skips, the others' third Skip
 * becomes Over. */
#define QUIET3                                                  \
    "1,talk,0,0,1,Skip\n1,talk,1,0,2,Skip\n1,talk,2,0,3,Skip\n" \
    "1,talk,3,1,1,Over\n1,talk,4,1,2,Skip\n1,talk,5,1,3,Skip\n" \
    "1,talk,6,2,1,Skip\n1,talk,7,2,2,Over\n1,talk,8,2,3,Over\n"
/* ... and a fourth turn that ends it the official way. */
#define TURN3_OVER "1,talk,9,3,1,Over\n1,talk,10,3,2,Over\n1,talk,11,3,3,Over\n"

static const char quiet_then_over[] = HEAD3 QUIET3 TURN3_OVER VOTES3 TAIL3;
static const char quiet_stop[] = HEAD3 QUIET3 VOTES3 TAIL3;

/* Five players for seed2015: seer 1, werewolves 2 and 3, villagers 4, 5.
 * Day 1: two talk rounds, each followed by a whisper phase (of two rounds,
 * then of one); werewolf 2 is
 * executed; the seer divines 3; werewolf 3 attacks 4. Day 2: werewolf 3 is
 * executed; the seer divines 5. */
static const char seed5[] =
    "0,status,1,SEER,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n0,status,3,WEREWOLF,ALIVE,c\n"
    "0,status,4,VILLAGER,ALIVE,d\n0,status,5,VILLAGER,ALIVE,e\n"
    "0,divine,1,2,WEREWOLF\n"
    "1,status,1,SEER,ALIVE,a\n1,status,2,WEREWOLF,ALIVE,b\n1,status,3,WEREWOLF,ALIVE,c\n"
    "1,status,4,VILLAGER,ALIVE,d\n1,status,5,VILLAGER,ALIVE,e\n"
    "1,talk,0,0,3,VOTE Agent2\n1,talk,1,0,1,DIVINED Agent2 WEREWOLF\n1,talk,2,0,5,OVER\n"
    "1,talk,3,0,2,OVER\n1,talk,4,0,4,OVER\n"
    "1,whisper,0,0,2,ATTACK Agent4\n1,whisper,1,0,3,OVER\n"
    "1,whisper,2,1,3,OVER\n1,whisper,3,1,2,OVER\n"
    "1,talk,5,1,1,OVER\n1,talk,6,1,2,OVER\n1,talk,7,1,3,OVER\n1,talk,8,1,4,OVER\n1,talk,9,1,5,OVER\n"
    "1,whisper,4,0,2,OVER\n1,whisper,5,0,3,OVER\n"
    "1,vote,1,2\n1,vote,2,1\n1,vote,3,1\n1,vote,4,2\n1,vote,5,2\n1,execute,2,WEREWOLF\n"
    "1,divine,1,3,WEREWOLF\n"
    "1,attackVote,3,4\n1,attack,4,true\n"
    "2,status,1,SEER,ALIVE,a\n2,status,2,WEREWOLF,DEAD,b\n2,status,3,WEREWOLF,ALIVE,c\n"
    "2,status,4,VILLAGER,DEAD,d\n2,status,5,VILLAGER,ALIVE,e\n"
    "2,talk,0,0,1,OVER\n2,talk,1,0,5,OVER\n2,talk,2,0,3,OVER\n"
    "2,vote,1,3\n2,vote,3,1\n2,vote,5,3\n2,execute,3,WEREWOLF\n"
    "2,divine,1,5,HUMAN\n"
    "3,status,1,SEER,ALIVE,a\n3,status,2,WEREWOLF,DEAD,b\n3,status,3,WEREWOLF,DEAD,c\n"
    "3,status,4,VILLAGER,DEAD,d\n3,status,5,VILLAGER,ALIVE,e\n"
    "3,result,2,0,VILLAGER\n";

/* Two tied vote rounds; nobody executed (enable_no_execution) and nobody
 * attacked (enable_no_attack); day 2 executes the werewolf. */
#define TIE3 "1,vote,1,2\n1,vote,2,3\n1,vote,3,1\n"
static const char noexec3[] =
    HEAD3 OVER3 TIE3 TIE3 "1,divine,1,3,HUMAN\n1,attackVote,2,3\n1,attack,3,true\n"
                          "2,status,1,SEER,ALIVE,a\n2,status,2,WEREWOLF,ALIVE,b\n2,status,3,VILLAGER,DEAD,c\n"
                          "2,result,1,1,WEREWOLF\n";
static const char noattack3[] =
    HEAD3 OVER3 TIE3 TIE3 "1,divine,1,3,HUMAN\n1,attack,-1,false\n"
                          "2,status,1,SEER,ALIVE,a\n2,status,2,WEREWOLF,ALIVE,b\n2,status,3,VILLAGER,ALIVE,c\n"
                          "2,talk,0,0,3,Over\n2,talk,1,0,1,Over\n2,talk,2,0,2,Over\n"
                          "2,vote,1,2\n2,vote,2,1\n2,vote,3,2\n2,execute,2,WEREWOLF\n"
                          "2,divine,1,3,HUMAN\n"
                          "3,status,1,SEER,ALIVE,a\n3,status,2,WEREWOLF,DEAD,b\n3,status,3,VILLAGER,ALIVE,c\n"
                          "3,result,2,0,VILLAGER\n";

/* Five players, two werewolves (2, 3), official rules: the werewolves tie
 * in the first attack round, whisper again, and agree in the revote. */
static const char wbr5[] =
    "0,status,1,SEER,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n0,status,3,WEREWOLF,ALIVE,c\n"
    "0,status,4,VILLAGER,ALIVE,d\n0,status,5,VILLAGER,ALIVE,e\n"
    "0,whisper,0,0,2,Over\n0,whisper,1,0,3,Over\n"
    "0,divine,1,2,WEREWOLF\n"
    "1,status,1,SEER,ALIVE,a\n1,status,2,WEREWOLF,ALIVE,b\n1,status,3,WEREWOLF,ALIVE,c\n"
    "1,status,4,VILLAGER,ALIVE,d\n1,status,5,VILLAGER,ALIVE,e\n"
    "1,talk,0,0,3,Over\n1,talk,1,0,1,Over\n1,talk,2,0,5,Over\n1,talk,3,0,2,Over\n1,talk,4,0,4,Over\n"
    "1,vote,1,4\n1,vote,2,4\n1,vote,3,4\n1,vote,4,2\n1,vote,5,4\n1,execute,4,VILLAGER\n"
    "1,divine,1,3,WEREWOLF\n"
    "1,whisper,0,0,3,Over\n1,whisper,1,0,2,Over\n"
    "1,attackVote,2,1\n1,attackVote,3,5\n"
    "1,whisper,2,0,2,Over\n1,whisper,3,0,3,Over\n"
    "1,attackVote,2,5\n1,attackVote,3,5\n"
    "1,attack,5,true\n"
    "2,status,1,SEER,ALIVE,a\n2,status,2,WEREWOLF,ALIVE,b\n2,status,3,WEREWOLF,ALIVE,c\n"
    "2,status,4,VILLAGER,DEAD,d\n2,status,5,VILLAGER,DEAD,e\n"
    "2,result,1,2,WEREWOLF\n";

static void replace(char *dst, size_t cap, const char *src, const char *from, const char *to)
{
    const char *p = strstr(src, from);
    CHECK_MSG(p != NULL, "'%s' not in the log", from);
    if (!p) {
        snprintf(dst, cap, "%s", src);
        return;
    }
    snprintf(dst, cap, "%.*s%s%s", (int)(p - src), src, to, p + strlen(from));
}

static void test_simple(void)
{
    LEGAL("aiwolf", NULL, simple3);
    LEGAL("regulation", NULL, simple3);
    LEGAL("seed2015", NULL, simple3);
}

static void test_revotes(void)
{
    LEGAL("aiwolf", NULL, revote3);
    LEGAL("regulation", NULL, revote3);
    /* seed2015 has no revote: the tie is broken at random at once. */
    ILLEGAL("seed2015", NULL, revote3, 14, "max_revote=0");
    ILLEGAL("aiwolf", "max_revote=0", revote3, 14, "max_revote=0");
    /* and with revotes, a tie must not be followed by the execution */
    char buf[4096];
    replace(buf, sizeof buf, revote3, VOTES3, "1,execute,2,WEREWOLF\n");
    ILLEGAL("aiwolf", NULL, buf, 14, "a revote must follow");
}

static void test_quiet_turns(void)
{
    /* The official rules go on after three quiet turns; the regulation
     * ends the talk there. */
    LEGAL("aiwolf", NULL, quiet_then_over);
    ILLEGAL("regulation", NULL, quiet_then_over, 17, "talk_end_all_skip_turns=3");
    LEGAL("regulation", NULL, quiet_stop);
    ILLEGAL("aiwolf", NULL, quiet_stop, 17, "the talk goes on");
    /* One real utterance among them restarts the count. */
    char buf[4096];
    replace(buf, sizeof buf, quiet_then_over, "1,talk,3,1,1,Over", "1,talk,3,1,1,VOTE Agent[02]");
    LEGAL("regulation", NULL, buf);
}

static void test_seed(void)
{
    LEGAL("seed2015", NULL, seed5);
    /* aiwolf: the two werewolves whisper on night 0 */
    ILLEGAL("aiwolf", NULL, seed5, 6, "expected the whisper of day 0");
    char buf[8192];
    /* every living werewolf must vote to attack */
    replace(buf, sizeof buf, seed5, "1,attackVote,3,4\n", "");
    ILLEGAL("seed2015", NULL, buf, 35, "cast no attack vote");
    /* every living seer must divine */
    replace(buf, sizeof buf, seed5, "1,divine,1,3,WEREWOLF\n", "");
    ILLEGAL("seed2015", NULL, buf, 34, "seer 1 did not divine");
    /* a divination on night 0 is still required */
    replace(buf, sizeof buf, seed5, "0,divine,1,2,WEREWOLF\n", "");
    ILLEGAL("seed2015", NULL, buf, 6, "seer 1 did not divine");
    /* no talk on day 0 */
    replace(buf, sizeof buf, seed5, "0,divine,1,2,WEREWOLF\n", "0,talk,0,0,1,OVER\n0,divine,1,2,WEREWOLF\n");
    ILLEGAL("seed2015", NULL, buf, 6, "talk on day 0");
    /* the talk ends with the first all-OVER round: no round after it */
    replace(buf, sizeof buf, seed5, "1,vote,1,2\n", "1,talk,10,2,1,OVER\n1,vote,1,2\n");
    ILLEGAL("seed2015", NULL, buf, 28, "round 1 was all Over");
    /* a villager does not whisper */
    replace(buf, sizeof buf, seed5, "1,whisper,1,0,3,OVER", "1,whisper,1,0,4,OVER");
    ILLEGAL("seed2015", NULL, buf, 18, "only the living werewolves whisper");
    /* the whisper round must be complete */
    replace(buf, sizeof buf, seed5, "1,whisper,3,1,2,OVER\n", "");
    ILLEGAL("seed2015", NULL, buf, 20, "turn 1 of the whisper is incomplete: 2 has not whispered");
    /* attack votes stay on living humans */
    replace(buf, sizeof buf, seed5, "1,attackVote,3,4", "1,attackVote,3,2");
    ILLEGAL("seed2015", NULL, buf, 35, "a werewolf");
    /* the werewolves whisper after every round, the last one too */
    replace(buf, sizeof buf, seed5, "1,whisper,4,0,2,OVER\n1,whisper,5,0,3,OVER\n", "");
    ILLEGAL("seed2015", NULL, buf, 26, "expected the whisper of day 1");
    /* OVER ends the talk only under lenient validation (the engine's rule) */
    ILLEGAL("seed2015", "validation=off", seed5, 21, "the whisper goes on");
}

static void test_roles_option(void)
{
    aw_settings s;
    aw_error err;
    aw_logcheck_report rep;
    aw_settings_preset(&s, "aiwolf", 5, &err);
    aw_logcheck_options opt;
    memset(&opt, 0, sizeof opt);
    /* 3 players: the official table is SEER, WEREWOLF, VILLAGER */
    opt.strict_roles = true;
    CHECK_INT(aw_logcheck(simple3, strlen(simple3), &s, &opt, &rep, &err), AW_LOG_LEGAL);
    int roles[AW_NROLES] = {0};
    roles[AW_SEER] = 1;
    roles[AW_WEREWOLF] = 1;
    roles[AW_VILLAGER] = 1;
    opt.strict_roles = false;
    opt.roles = roles;
    CHECK_INT(aw_logcheck(simple3, strlen(simple3), &s, &opt, &rep, &err), AW_LOG_LEGAL);
    roles[AW_VILLAGER] = 0;
    roles[AW_POSSESSED] = 1;
    CHECK_INT(aw_logcheck(simple3, strlen(simple3), &s, &opt, &rep, &err), AW_LOG_ILLEGAL);
    CHECK(strstr(rep.reason, "POSSESSED") != NULL);
    /* 5 players, two werewolves: not the official table for 5 */
    opt.roles = NULL;
    opt.strict_roles = true;
    CHECK_INT(aw_logcheck(seed5, strlen(seed5), &s, &opt, &rep, &err), AW_LOG_ILLEGAL);
    CHECK(strstr(rep.reason, "official table") != NULL);
}

/* A validator hook sees every talk and whisper text and can reject one. */
static int reject_vote(void *ud, const char *text, size_t len, aw_validation mode, aw_error *err)
{
    (void)mode;
    ++*(int *)ud;
    if (len >= 4 && memcmp(text, "VOTE", 4) == 0)
        return aw_fail(err, AW_EINVAL, "no VOTE here");
    return 0;
}

static void test_validator_hook(void)
{
    aw_settings s;
    aw_error err;
    aw_logcheck_report rep;
    aw_settings_preset(&s, "seed2015", 5, &err);
    int calls = 0;
    aw_logcheck_options opt;
    memset(&opt, 0, sizeof opt);
    opt.validate = reject_vote;
    opt.validate_ud = &calls;
    CHECK_INT(aw_logcheck(seed5, strlen(seed5), &s, &opt, &rep, &err), AW_LOG_ILLEGAL);
    CHECK_INT(rep.line, 12);
    CHECK(strstr(rep.reason, "invalid talk text: no VOTE here") != NULL);
    CHECK_INT(calls, 1);
}

static void test_hostile(void)
{
    aw_logcheck_report rep;
    ILLEGAL("aiwolf", NULL,
            "\x7f"
            "ELF\x02\x01\x01",
            1, "not a game log line");
    ILLEGAL("aiwolf", NULL, "0,status,1,SEER,ALIVE,a\n0,status,3,SEER,ALIVE,a\n", 2, "expected agent 2");
    ILLEGAL("aiwolf", NULL, "0,status,-1,SEER,ALIVE,a\n", 1, "not an agent number");
    ILLEGAL("aiwolf", NULL, "0,status,1,KING,ALIVE,a\n", 1, "not a role");
    ILLEGAL("aiwolf", NULL, "99999999999999999999,status,1,SEER,ALIVE,a\n", 1, "not a day number");
    ILLEGAL("aiwolf", NULL, "1,status,1,SEER,ALIVE,a\n", 1, "starts on day 0");
    ILLEGAL("aiwolf", NULL, "\n\n", 1, "empty line");
    ILLEGAL("aiwolf", NULL, "0,status,1,FOX,ALIVE,a\n", 1, "FOX");
    /* a NUL byte */
    static const char nul[] = "0,status,1,SEER,ALIVE,a\n0,status,2,WERE\0WOLF,ALIVE,b\n";
    aw_settings s;
    aw_error err;
    aw_settings_preset(&s, "aiwolf", 5, &err);
    CHECK_INT(aw_logcheck(nul, sizeof nul - 1, &s, NULL, &rep, &err), AW_LOG_ILLEGAL);
    CHECK_INT(rep.line, 2);
    CHECK(strstr(rep.reason, "NUL byte") != NULL);
    CHECK(strstr(rep.text, "\\x00") != NULL);
    /* a huge line */
    static char big[1 << 20];
    memset(big, 'x', sizeof big - 1);
    memcpy(big, "0,status,1,SEER,ALIVE,", 22);
    int v = check_as("aiwolf", NULL, big, &rep);
    CHECK_INT(v, AW_LOG_INCOMPLETE);
    CHECK(strlen(rep.text) < sizeof rep.text);
    /* an empty text, and a log with only a status block */
    CHECK_INT(check_as("aiwolf", NULL, "", &rep), AW_LOG_INCOMPLETE);
    CHECK_INT(check_as("aiwolf", NULL,
                       "0,status,1,SEER,ALIVE,a\n0,status,2,WEREWOLF,ALIVE,b\n0,status,3,VILLAGER,ALIVE,c\n", &rep),
              AW_LOG_INCOMPLETE);
    CHECK_INT(rep.line, 4);
    /* CRLF line ends are accepted */
    char crlf[4096];
    size_t o = 0;
    for (const char *p = simple3; *p; p++) {
        if (*p == '\n')
            crlf[o++] = '\r';
        crlf[o++] = *p;
    }
    crlf[o] = '\0';
    LEGAL("aiwolf", NULL, crlf);
}

static void test_rare_settings(void)
{
    char buf[8192];
    LEGAL("aiwolf", "enable_no_execution=true", noexec3);
    ILLEGAL("aiwolf", NULL, noexec3, 17, "expected the execution of one of agents 1, 2 and 3");
    replace(buf, sizeof buf, noexec3, "1,divine,1,3,HUMAN\n", "1,execute,1,SEER\n");
    ILLEGAL("aiwolf", "enable_no_execution=true", buf, 17, "nobody is executed");
    LEGAL("aiwolf", "enable_no_execution=true;enable_no_attack=true", noattack3);
    ILLEGAL("aiwolf", "enable_no_execution=true", noattack3, 18, "attacks are compulsory");
    /* with enable_no_attack a unique top is still attacked */
    replace(buf, sizeof buf, noexec3, "1,attack,3,true", "1,attack,-1,false");
    ILLEGAL("aiwolf", "enable_no_execution=true;enable_no_attack=true", buf, 19, "nobody is attacked, but agent 3");
    LEGAL("aiwolf", "whisper_before_revote=true", wbr5);
    ILLEGAL("aiwolf", NULL, wbr5, 30, "expected the attack of night 1");
    replace(buf, sizeof buf, wbr5, "1,whisper,2,0,2,Over\n1,whisper,3,0,3,Over\n", "");
    LEGAL("aiwolf", NULL, buf);
    ILLEGAL("aiwolf", "whisper_before_revote=true", buf, 30, "without a whisper before it");
    /* more attack revotes allowed: the tie in the revote needs a third round */
    replace(buf, sizeof buf, wbr5, "1,attackVote,2,5\n1,attackVote,3,5\n", "1,attackVote,2,1\n1,attackVote,3,5\n");
    LEGAL("aiwolf", "whisper_before_revote=true", buf);
    ILLEGAL("aiwolf", "whisper_before_revote=true;max_attack_revote=2", buf, 34, "an attack revote must follow");
    /* an empty round (every vote dropped) between two whisper phases */
    replace(buf, sizeof buf, wbr5, "1,whisper,2,0,2,Over\n1,whisper,3,0,3,Over\n",
            "1,whisper,2,0,2,Over\n1,whisper,3,0,3,Over\n1,whisper,4,0,3,Over\n1,whisper,5,0,2,Over\n");
    ILLEGAL("aiwolf", "whisper_before_revote=true", buf, 34, "more attack vote rounds than allowed");
    LEGAL("aiwolf", "whisper_before_revote=true;max_attack_revote=2", buf);
}

int main(void)
{
    test_rare_settings();
    test_simple();
    test_revotes();
    test_quiet_turns();
    test_seed();
    test_roles_option();
    test_validator_hook();
    test_hostile();
    return test_done();
}
