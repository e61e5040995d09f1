/* cmd_replay: `aiwolf replay`, which replays recorded game logs through our
 * engine and says for each whether our engine writes it byte for byte; with
 * --record it also prints the readable record of the replayed game. The
 * replay itself lives in logreplay; this file only handles options, files
 * and output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "logreplay.h"
#include "settings.h"
#include "util.h"

/* --help: the head, the options (the table in cmd_replay), the foot. */
static const char replay_head[] =
    "usage: aiwolf replay [OPTIONS] LOG...\n"
    "\n"
    "Replays each AIWolf game log (the official server's CSV format, which\n"
    "'aiwolf play' also writes) through our engine: the log's roles and names,\n"
    "every player's talk, votes and night actions, and every random choice of\n"
    "the server (talk order, tie-breaks) are taken from the log, and the log\n"
    "our engine writes is compared with it byte for byte. One line per file:\n"
    "  PATH: reproduced (N lines)\n"
    "  PATH:LINE: differs: ours \"...\" log \"...\"\n"
    "  PATH:LINE: differs: REASON      (the engine asked what the log cannot answer)\n"
    "  PATH:LINE: cannot replay: REASON  (not a complete game log)\n"
    "A difference is a rule in which our engine and the log's server differ\n"
    "(or a damaged log); the replay stops at the first one.\n"
    "\n"
    "options:\n";
static const char replay_foot[] =
    "\n"
    "The rules: without --preset, each log is replayed under the rules it was\n"
    "played under, read from the file beside it that play, serve and contest\n"
    "write (as 'aiwolf check' reads it: LOG.rules, else aiwolf.rules in its\n"
    "folder, else a contest's contest.cfg); with none, the aiwolf preset. When a\n"
    "log differs under those rules but is reproduced under a preset, a hint\n"
    "line says which.\n"
    "\n"
    "A LOG compressed with gzip (a .gz file, or anything starting with the gzip\n"
    "magic bytes, standard input too) is read as the log it holds.\n"
    "\n"
    "exit status: 0 every log reproduced, 1 some log differs or cannot be\n"
    "             replayed, 2 bad usage or a file that cannot be read\n"
    "             (a truncated, damaged or oversized .gz too)\n";

typedef struct replay_ctx {
    aw_cli_rules rules;
    bool record, quiet, verbose;
    const char *text; /* the log being replayed */
    size_t len;
} replay_ctx;

static bool reproduced_under(void *ud, const aw_settings *rules)
{
    replay_ctx *c = ud;
    aw_error err;
    aw_replay_options opt = {NULL, NULL, NULL};
    aw_replay_report rep;
    return aw_replay(c->text, c->len, rules, &opt, &rep, &err) == AW_REPLAY_REPRODUCED;
}

static int replay_one(void *ud, const char *path, const char *text, size_t len)
{
    replay_ctx *c = ud;
    aw_settings rules;
    char source[4200];
    int rs = aw_cli_log_rules("replay", path, &c->rules, &rules, source, sizeof source);
    if (rs)
        return rs;
    aw_error err;
    aw_replay_options opt = {c->record ? stdout : NULL, NULL, NULL};
    aw_replay_report rep;
    int v = aw_replay(text, len, &rules, &opt, &rep, &err);
    if (v < 0) {
        aw_cli_line(stderr, "aiwolf replay: %s: %s", path, err.msg);
        return 2;
    }
    /* the lines and problems are the replayer's, their bytes shown as \xNN already */
    if (v == AW_REPLAY_REPRODUCED) {
        if (!c->quiet)
            printf("%s: reproduced (%ld lines)\n", aw_term(path).s, rep.lines);
    } else if (v == AW_REPLAY_UNUSABLE) {
        printf("%s:%ld: cannot replay: %s\n", aw_term(path).s, rep.error_line, rep.error);
    } else if (rep.diff_line) {
        printf("%s:%ld: differs: ours %s%s%s log %s%s%s\n", aw_term(path).s, rep.diff_line, rep.ours_eof ? "" : "\"",
               rep.ours_eof ? "(end of log)" : rep.ours, rep.ours_eof ? "" : "\"", rep.theirs_eof ? "" : "\"",
               rep.theirs_eof ? "(end of log)" : rep.theirs, rep.theirs_eof ? "" : "\"");
        if (rep.problem[0]) {
            if (rep.problem_line)
                printf("    line %ld: %s\n", rep.problem_line, rep.problem);
            else
                printf("    %s\n", rep.problem);
        }
    } else {
        printf("%s:%ld: differs: %s\n", aw_term(path).s, rep.problem_line, rep.problem);
    }
    if (c->verbose && rep.ambiguous_nights && v != AW_REPLAY_UNUSABLE)
        printf("    note: %d night%s with attack votes that fit more than one cut into rounds (first at line "
               "%ld); every fitting cut writes the same log\n",
               rep.ambiguous_nights, rep.ambiguous_nights == 1 ? "" : "s", rep.ambiguous_line);
    if (v == AW_REPLAY_REPRODUCED)
        return 0;
    c->text = text;
    c->len = len;
    aw_cli_preset_hint(&rules, reproduced_under, c, "reproduced", "replayed", source);
    return 1;
}

int cmd_replay(int argc, char **argv)
{
    const char *preset = NULL;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0, status = 0;
    bool record = false, quiet = false, verbose = false;
    if (!files) {
        fprintf(stderr, "aiwolf replay: out of memory\n");
        free(files);
        return 2;
    }
    aw_cli_rule_opts ro = {0};
    aw_opt *group = aw_cli_rule_group(&ro, AW_RULE_PRESET | AW_RULE_SET,
                                      "rules to replay under, instead of the log's own: aiwolf\n"
                                                     "(official server 0.6.x defaults), seed2015, regulation",
                                      NULL);
        aw_opts_set_help(group, "--set",
                         "change one rule setting of those rules (repeatable);\n"
                                        "players and roles always come from the log");
    aw_opt_list file_list = {files, 0, argc, NULL};
    const aw_opt opts[] = {
        {.kind = AW_OPT_GROUP, .to = group},
        {.name = "--record", .kind = AW_OPT_FLAG, .to = &record,
         .help =
               "print the readable record of each replayed game (as\n"
               "'aiwolf play' does) before its verdict"},
        {.name = "--verbose", .alias = "-v", .kind = AW_OPT_FLAG, .to = &verbose,
         .help =
               "also name the nights whose attack votes fit more than\n"
               "one cut into rounds (the log does not mark rounds)"},
        {.name = "--quiet", .alias = "-q", .kind = AW_OPT_FLAG, .to = &quiet,
         .help =
               "print nothing for reproduced logs"},
        {.kind = AW_OPT_GROUP, .to = (void *)aw_cli_log_file_rows},
        {0},
    };
    const aw_opts_cmd cmd = {"replay", replay_head, opts, replay_foot, &file_list, 0};
    int prc = aw_opts_parse(&cmd, argc, argv, 1);
    if (prc != AW_OPTS_OK) {
        status = prc == AW_OPTS_EXIT ? 0 : 2;
        goto done;
    }
    preset = ro.preset;
    nfiles = file_list.n;
    const char *const *sets = ro.setv;
    int nsets = ro.sets.n;

    aw_settings rules;
    aw_error err;
    memset(&err, 0, sizeof err);
    /* The player count and roles are the log's; any valid count gives the rules. */
    if (aw_settings_from(&rules, preset ? preset : "aiwolf", 5, sets, nsets, &err) != 0) {
        fprintf(stderr, "aiwolf replay: %s\n", aw_term(err.msg).s);
        status = 2;
        goto done;
    }
    if (nfiles == 0) {
        fprintf(stderr, "aiwolf replay: no log files given (aiwolf replay --help)\n");
        status = 2;
        goto done;
    }

    replay_ctx ctx = {{preset, sets, nsets}, record, quiet, verbose, NULL, 0};
    status = aw_cli_each_file("replay", files, nfiles, replay_one, &ctx);

done:
    free(files);
    return status;
}
