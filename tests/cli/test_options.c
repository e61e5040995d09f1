/* test_options: runtime/cli/options.c, the command options as tables: every
 * kind of row, the messages for an unknown option, a missing value, a value
 * given to a flag, a bad value and one value too many, the repeated option,
 * "--" and "-", the shared rule and limits groups, and --help from the same
 * rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "test.h"

/* What the last parse said on stderr (and stdout for --help). */
static char said[4096], printed[8192];

static void slurp(FILE *f, char *buf, size_t n)
{
    rewind(f);
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
}

/* The values the test table fills. */
typedef struct vals {
    long count;
    int small;
    const char *name, *lang;
    uint64_t seed;
    bool quiet, loud, seen_seed;
    int mode;
    const char *tagv[3];
    aw_opt_list tags;
    const char *posv[2];
    aw_opt_list pos;
    int called;
    aw_cli_rule_opts ro;
} vals;

static int even(void *to, const char *v)
{
    vals *x = to;
    x->called++;
    long n = strtol(v, NULL, 10);
    if (n % 2)
        return -1;
    if (n == 4) {
        fprintf(stderr, "aiwolf t: four said by the handler\n");
        return 2;
    }
    return 0;
}

static int run(const aw_opts_cmd *cmd, char **argv);

/* Parses argv (NULL-terminated, argv[0] the command) against the test
 * table; returns aw_opts_parse's result, with said/printed filled. */
static int parse(vals *x, char **argv)
{
    memset(x, 0, sizeof *x);
    x->loud = true;
    x->mode = -1;
    x->tags = (aw_opt_list){x->tagv, 0, 3, "too many --tag options"};
    x->pos = (aw_opt_list){x->posv, 0, 2, "two files at most"};
    x->ro.preset = "aiwolf";
    aw_opt *group = aw_cli_rule_group(&x->ro, AW_RULE_PRESET | AW_RULE_PLAYERS | AW_RULE_SET, NULL, NULL);
    const aw_opt opts[] = {
        {.name = "--count", .alias = "-c", .arg = "N", .kind = AW_OPT_LONG, .to = &x->count, .min = 0, .max = 100,
         .help = "how many (0 to 100)"},
        {.name = "--small", .arg = "K", .kind = AW_OPT_INT, .to = &x->small, .min = -5, .max = 5,
         .bad = "'%s' is not small", .help = "a small number,\nfrom -5 to 5"},
        {.name = "--name", .arg = "S", .kind = AW_OPT_STR, .to = &x->name, .help = "a name"},
        {.name = "--lang", .arg = "en|ja", .kind = AW_OPT_CHOICE, .to = &x->lang, .help = "a language"},
        {.name = "--seed", .arg = "S", .kind = AW_OPT_U64, .to = &x->seed, .min = 1, .seen = &x->seen_seed,
         .help = "a seed"},
        {.name = "--quiet", .alias = "-q", .kind = AW_OPT_FLAG, .to = &x->quiet, .help = "quiet"},
        {.name = "--no-loud", .kind = AW_OPT_UNFLAG, .to = &x->loud, .help = "not loud"},
        {.name = "--strict", .kind = AW_OPT_SETINT, .to = &x->mode, .min = 0, .help = "strict"},
        {.name = "--lenient", .kind = AW_OPT_SETINT, .to = &x->mode, .min = 1, .help = "lenient"},
        {.name = "--tag", .arg = "T", .kind = AW_OPT_LIST, .to = &x->tags, .help = "a tag (repeatable)"},
        {.name = "--even", .arg = "N", .kind = AW_OPT_CALL, .to = x, .call = even, .bad = "'%s' is odd",
         .help = "an even number"},
        {.kind = AW_OPT_GROUP, .to = group},
        {.name = "--old-name", .kind = AW_OPT_FLAG, .to = &x->quiet}, /* accepted, not listed */
        {.name = "--help", .alias = "-h", .kind = AW_OPT_HELP, .help = "this text"},
        {.name = "--", .kind = AW_OPT_NOTE, .help = "end of options"},
        {0},
    };
    const aw_opts_cmd cmd = {"t", "usage: aiwolf t [OPTIONS] FILE...\n\noptions:\n", opts, "\nExit status: 100%%.\n",
                             &x->pos, 0};
    return run(&cmd, argv);
}

/* Parses argv against cmd, with said/printed filled. */
static int run(const aw_opts_cmd *cmd, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    FILE *err = tmpfile(), *out = tmpfile(), *olderr = stderr, *oldout = stdout;
    if (!err || !out)
        abort();
    stderr = err;
    stdout = out;
    int rc = aw_opts_parse(cmd, argc, argv, 1);
    fflush(err);
    fflush(out);
    stderr = olderr;
    stdout = oldout;
    slurp(err, said, sizeof said);
    slurp(out, printed, sizeof printed);
    return rc;
}

#define ARGV(...) ((char *[]){"t", __VA_ARGS__, NULL})

static void test_values(void)
{
    vals x;
    CHECK_INT(parse(&x, ARGV("--count", "7", "-q", "a.lua", "--name=bob", "--seed", "18446744073709551615",
                             "--small=-5", "--lang", "ja", "--no-loud", "--lenient", "--tag", "x", "--tag=y",
                             "--even", "6", "-")),
              AW_OPTS_OK);
    CHECK_STR(said, "");
    CHECK_INT(x.count, 7);
    CHECK(x.quiet);
    CHECK_STR(x.name, "bob");
    CHECK(x.seed == UINT64_MAX);
    CHECK(x.seen_seed);
    CHECK_INT(x.small, -5);
    CHECK_STR(x.lang, "ja");
    CHECK(!x.loud);
    CHECK_INT(x.mode, 1);
    CHECK_INT(x.tags.n, 2);
    CHECK_STR(x.tagv[0], "x");
    CHECK_STR(x.tagv[1], "y");
    CHECK_INT(x.called, 1);
    /* operands: in the order given; "-" alone is one (standard input) */
    CHECK_INT(x.pos.n, 2);
    CHECK_STR(x.posv[0], "a.lua");
    CHECK_STR(x.posv[1], "-");
    /* nothing given: the defaults stay, nothing is marked seen */
    CHECK_INT(parse(&x, ARGV("f")), AW_OPTS_OK);
    CHECK(!x.seen_seed && x.loud && x.mode == -1 && !x.ro.have_preset && !x.ro.have_players);
    CHECK_STR(x.ro.preset, "aiwolf");
    /* a repeated option: its last value is the one kept */
    CHECK_INT(parse(&x, ARGV("--count", "1", "-c", "2", "--count=3")), AW_OPTS_OK);
    CHECK_INT(x.count, 3);
    CHECK_INT(parse(&x, ARGV("--strict", "--lenient", "--strict")), AW_OPTS_OK);
    CHECK_INT(x.mode, 0);
    /* "--" ends the options: what follows is operands, "-x" too */
    CHECK_INT(parse(&x, ARGV("--", "-q", "--count")), AW_OPTS_OK);
    CHECK(!x.quiet);
    CHECK_INT(x.pos.n, 2);
    CHECK_STR(x.posv[0], "-q");
    CHECK_STR(x.posv[1], "--count");
    /* a long alias row that --help does not list still parses */
    CHECK_INT(parse(&x, ARGV("--old-name")), AW_OPTS_OK);
    CHECK(x.quiet);
    /* a value that starts with '-' is taken as the value */
    CHECK_INT(parse(&x, ARGV("--name", "-q")), AW_OPTS_OK);
    CHECK_STR(x.name, "-q");
    CHECK(!x.quiet);
}

static void test_bad_input(void)
{
    vals x;
    CHECK_INT(parse(&x, ARGV("--nope")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: unknown option '--nope' (aiwolf t --help)\n");
    CHECK_INT(parse(&x, ARGV("--nope=3")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: unknown option '--nope' (aiwolf t --help)\n");
    CHECK_INT(parse(&x, ARGV("-x")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: unknown option '-x' (aiwolf t --help)\n");
    /* a NOTE row (the "--" line of --help) is not an option */
    CHECK_INT(parse(&x, ARGV("--=1")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: unknown option '--' (aiwolf t --help)\n");
    /* an option's name from the terminal is escaped */
    CHECK_INT(parse(&x, ARGV("--\033[31mred")), AW_OPTS_BAD);
    CHECK(strchr(said, '\033') == NULL);
    /* and so are the values shown in messages */
    CHECK_INT(parse(&x, ARGV("--count", "\033]0;title\a")), AW_OPTS_BAD);
    CHECK(strchr(said, '\033') == NULL && strchr(said, '\a') == NULL);
    CHECK(strstr(said, "is not a number from 0 to 100 (aiwolf t --help)\n") != NULL);
    CHECK_INT(parse(&x, ARGV("--small", "\033[2J")), AW_OPTS_BAD);
    CHECK(strchr(said, '\033') == NULL);
    CHECK(strstr(said, "is not small (aiwolf t --help)\n") != NULL);
    CHECK_INT(parse(&x, ARGV("--count")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --count needs a value (aiwolf t --help)\n");
    CHECK_INT(parse(&x, ARGV("a", "-c")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: -c needs a value (aiwolf t --help)\n");
    CHECK_INT(parse(&x, ARGV("--quiet=yes")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --quiet takes no value (aiwolf t --help)\n");
    CHECK(!x.quiet);
    /* bad values: the row's message, else the kind's own */
    CHECK_INT(parse(&x, ARGV("--count", "101")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --count: '101' is not a number from 0 to 100 (aiwolf t --help)\n");
    CHECK_INT(parse(&x, ARGV("-c", "7x")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: -c: '7x' is not a number from 0 to 100 (aiwolf t --help)\n");
    CHECK_INT(parse(&x, ARGV("--count", "")), AW_OPTS_BAD);
    CHECK_INT(parse(&x, ARGV("--small", "6")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --small: '6' is not small (aiwolf t --help)\n");
    CHECK_INT(parse(&x, ARGV("--seed", "0")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --seed: '0' is not a positive whole number below 2^64 (aiwolf t --help)\n");
    CHECK(!x.seen_seed);
    CHECK_INT(parse(&x, ARGV("--seed", "18446744073709551616")), AW_OPTS_BAD);
    CHECK_INT(parse(&x, ARGV("--seed", "-1")), AW_OPTS_BAD);
    CHECK_INT(parse(&x, ARGV("--lang", "fr")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --lang: 'fr' is not one of en|ja (aiwolf t --help)\n");
    CHECK_INT(parse(&x, ARGV("--lang", "e")), AW_OPTS_BAD); /* a prefix of a choice is not one */
    CHECK_INT(parse(&x, ARGV("--lang", "en|ja")), AW_OPTS_BAD);
    CHECK_INT(parse(&x, ARGV("--even", "3")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --even: '3' is odd (aiwolf t --help)\n");
    /* a handler that says why itself: its message only */
    CHECK_INT(parse(&x, ARGV("--even", "4")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: four said by the handler\n");
    /* one value too many */
    CHECK_INT(parse(&x, ARGV("--tag", "1", "--tag", "2", "--tag", "3", "--tag", "4")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: too many --tag options (aiwolf t --help)\n");
    CHECK_INT(parse(&x, ARGV("a", "b", "c")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: two files at most (aiwolf t --help)\n");
    /* parsing stops at the first bad option: what follows is not taken */
    CHECK_INT(parse(&x, ARGV("--nope", "-q")), AW_OPTS_BAD);
    CHECK(!x.quiet);
}

static void test_rule_group(void)
{
    vals x;
    CHECK_INT(parse(&x, ARGV("--preset", "seed2015", "-n", "15", "--set", "maxTalk=3", "--set=talkOnFirstDay=true")),
              AW_OPTS_OK);
    CHECK_STR(x.ro.preset, "seed2015");
    CHECK(x.ro.have_preset && x.ro.have_players);
    CHECK_INT(x.ro.players, 15);
    CHECK_INT(x.ro.sets.n, 2);
    CHECK_STR(x.ro.setv[1], "talkOnFirstDay=true");
    CHECK_INT(parse(&x, ARGV("--players", "2")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --players: '2' is not a number of players (3 to 18) (aiwolf t --help)\n");
    CHECK_INT(parse(&x, ARGV("-n", "19")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: -n: '19' is not a number of players (3 to 18) (aiwolf t --help)\n");
    /* rows the command did not take are unknown to it */
    CHECK_INT(parse(&x, ARGV("--roles", "SEER=1")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: unknown option '--roles' (aiwolf t --help)\n");
    CHECK_INT(parse(&x, ARGV("--deal", "1=SEER")), AW_OPTS_BAD);
    /* --set: 64 at most */
    char *argv[2 * AW_RULE_MAX_SETS + 4];
    int n = 0;
    argv[n++] = "t";
    for (int i = 0; i <= AW_RULE_MAX_SETS; i++) {
        argv[n++] = "--set";
        argv[n++] = "maxTalk=3";
    }
    argv[n] = NULL;
    CHECK_INT(parse(&x, argv), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: too many --set options (aiwolf t --help)\n");
    argv[n - 2] = NULL;
    CHECK_INT(parse(&x, argv), AW_OPTS_OK);
    CHECK_INT(x.ro.sets.n, AW_RULE_MAX_SETS);
    /* a command's own help text for a row of the group */
    aw_cli_rule_opts ro = {0};
    aw_opt *rows = aw_cli_rule_group(&ro, AW_RULE_PRESET | AW_RULE_ROLES | AW_RULE_DEAL, "mine", NULL);
    aw_opts_set_help(rows, "--roles", "its own");
    CHECK_STR(rows[0].name, "--preset");
    CHECK_STR(rows[0].help, "mine");
    CHECK_STR(rows[1].name, "--roles");
    CHECK_STR(rows[1].help, "its own");
    CHECK_STR(rows[2].name, "--deal");
    CHECK_INT(rows[3].kind, AW_OPT_END);
}

/* Parses argv against a table of the limits group's rows `which` (with a
 * command's defaults in l->limits, kept unless given) and --help. */
static int parse_limits(aw_cli_limits_opts *l, unsigned which, char **argv)
{
    const aw_opt opts[] = {
        {.kind = AW_OPT_GROUP, .to = aw_cli_limits_group(l, which)},
        {.name = "--help", .kind = AW_OPT_HELP, .help = "this text"},
        {0},
    };
    const aw_opts_cmd cmd = {"t", NULL, opts, NULL, NULL, 0};
    return run(&cmd, argv);
}

static void test_limits_group(void)
{
    unsigned all = AW_LIMIT_BUDGET | AW_LIMIT_MEMORY | AW_LIMIT_WORK | AW_LIMIT_ISOLATE;
    aw_cli_limits_opts l;
    memset(&l, 0, sizeof l);
    CHECK_INT(parse_limits(&l, all, ARGV("--budget", "250", "--memory=3", "--work", "1000", "--isolate")),
              AW_OPTS_OK);
    CHECK_STR(said, "");
    CHECK_INT(l.limits.budget_ms, 250);
    CHECK(l.limits.memory_bytes == (size_t)3 << 20);
    CHECK(l.limits.work_budget == 1000);
    CHECK(l.limits.isolate && l.have_budget);
    CHECK(l.limits.read_dir == NULL);
    /* the bounds: megabytes become bytes past 32 bits */
    CHECK_INT(parse_limits(&l, all, ARGV("--budget", "3600000", "--memory", "65536", "--work", "18446744073709551615")),
              AW_OPTS_OK);
    CHECK_INT(l.limits.budget_ms, 3600000);
    CHECK(l.limits.memory_bytes == (size_t)65536 << 20);
    CHECK(l.limits.work_budget == UINT64_MAX);
    /* nothing given: the command's defaults stay */
    memset(&l, 0, sizeof l);
    l.limits.budget_ms = 100;
    l.limits.memory_bytes = (size_t)64 << 20;
    CHECK_INT(parse_limits(&l, all, ARGV("--help")), AW_OPTS_EXIT);
    CHECK(l.limits.budget_ms == 100 && l.limits.memory_bytes == (size_t)64 << 20 && l.limits.work_budget == 0);
    CHECK(!l.limits.isolate && !l.have_budget);
    CHECK_STR(printed, "  --budget MS   time per agent call (default: the preset's)\n"
                       "  --memory MB   memory cap per agent (default 64)\n"
                       "  --work UNITS  also a deterministic budget per call, in work units (VM\n"
                       "                instructions plus library work; docs/sandbox.md): the same\n"
                       "                agent stops at the same point on any machine and load\n"
                       "  --isolate     run each agent in its own confined child process, kept\n"
                       "                across games (docs/isolation.md)\n"
                       "  --help        this text\n");
    /* bad values: the same messages wherever the group is taken */
    CHECK_INT(parse_limits(&l, all, ARGV("--budget", "0")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --budget: '0' is not a number of milliseconds (1 to 3600000) (aiwolf t --help)\n");
    CHECK_INT(parse_limits(&l, all, ARGV("--budget", "3600001")), AW_OPTS_BAD);
    CHECK_INT(parse_limits(&l, all, ARGV("--memory", "65537")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --memory: '65537' is not a number of megabytes (1 to 65536) (aiwolf t --help)\n");
    CHECK_INT(parse_limits(&l, all, ARGV("--memory", "0")), AW_OPTS_BAD);
    CHECK_INT(parse_limits(&l, all, ARGV("--memory", "1.5")), AW_OPTS_BAD);
    CHECK_INT(parse_limits(&l, all, ARGV("--work", "0")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --work: '0' is not a positive number of work units (aiwolf t --help)\n");
    CHECK_INT(parse_limits(&l, all, ARGV("--isolate=1")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --isolate takes no value (aiwolf t --help)\n");
    CHECK(l.limits.budget_ms == 100 && l.limits.memory_bytes == (size_t)64 << 20);
    /* rows the command did not take are unknown to it */
    CHECK_INT(parse_limits(&l, AW_LIMIT_BUDGET | AW_LIMIT_WORK, ARGV("--isolate")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: unknown option '--isolate' (aiwolf t --help)\n");
    CHECK_INT(parse_limits(&l, AW_LIMIT_BUDGET | AW_LIMIT_WORK, ARGV("--memory", "3")), AW_OPTS_BAD);
    /* a command's own bounds and message (the contest's, capped after) */
    memset(&l, 0, sizeof l);
    aw_opt *rows = aw_cli_limits_group(&l, all);
    aw_opts_set_range(rows, "--memory", 1, 100000000, "'%s' is not a positive whole number");
    aw_opts_set_range(rows, "--work", 0, 0, NULL);
    aw_opts_set_range(rows, "--budget", 0, 10, NULL);
    const aw_opt opts[] = {{.kind = AW_OPT_GROUP, .to = rows}, {0}};
    const aw_opts_cmd cmd = {"t", NULL, opts, NULL, NULL, 0};
    CHECK_INT(run(&cmd, ARGV("--memory", "100000000", "--work", "0", "--budget", "0")), AW_OPTS_OK);
    CHECK(l.limits.memory_bytes == (size_t)100000000 << 20);
    CHECK_INT(run(&cmd, ARGV("--memory", "0")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --memory: '0' is not a positive whole number (aiwolf t --help)\n");
    CHECK_INT(run(&cmd, ARGV("--budget", "11")), AW_OPTS_BAD);
    CHECK_STR(said, "aiwolf t: --budget: '11' is not a number from 0 to 10 (aiwolf t --help)\n");
}

static void test_help(void)
{
    vals x;
    CHECK_INT(parse(&x, ARGV("-q", "--help", "--nope")), AW_OPTS_EXIT);
    CHECK_STR(said, "");
    CHECK_STR(printed, "usage: aiwolf t [OPTIONS] FILE...\n"
                       "\n"
                       "options:\n"
                       "  -c N, --count N    how many (0 to 100)\n"
                       "  --small K          a small number,\n"
                       "                     from -5 to 5\n"
                       "  --name S           a name\n"
                       "  --lang en|ja       a language\n"
                       "  --seed S           a seed\n"
                       "  -q, --quiet        quiet\n"
                       "  --no-loud          not loud\n"
                       "  --strict           strict\n"
                       "  --lenient          lenient\n"
                       "  --tag T            a tag (repeatable)\n"
                       "  --even N           an even number\n"
                       "  --preset P         rule set: aiwolf (official server 0.6.x, default),\n"
                       "                     seed2015 (the 2015 contest rules), regulation (2021-23)\n"
                       "  -n N, --players N  players per game, 3..18 (default 5)\n"
                       "  --set NAME=VALUE   change one rule setting (repeatable; docs/settings.md;\n"
                       "                     the official names, e.g. maxTalk=3, work too)\n"
                       "  -h, --help         this text\n"
                       "  --                 end of options\n"
                       "\n"
                       "Exit status: 100%.\n");
    CHECK_INT(parse(&x, ARGV("-h")), AW_OPTS_EXIT);
    /* a bad option before --help is the answer */
    CHECK_INT(parse(&x, ARGV("--nope", "--help")), AW_OPTS_BAD);
    CHECK_STR(printed, "");
}

int main(void)
{
    test_values();
    test_bad_input();
    test_rule_group();
    test_limits_group();
    test_help();
    return test_done();
}
