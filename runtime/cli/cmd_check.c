/* cmd_check: `aiwolf check`, which checks game logs against the rules of a
 * preset (with --set overrides) and prints one verdict line per file. The
 * rules themselves live in logcheck; this file only handles options, files
 * and output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "logcheck.h"
#include "protocol.h"
#include "settings.h"
#include "util.h"

/* --help: the head, the options (the table in cmd_check), the foot. */
static const char check_head[] =
    "usage: aiwolf check [OPTIONS] LOG...\n"
    "\n"
    "Checks that each AIWolf game log (the official server's CSV format, which\n"
    "'aiwolf play' also writes) records a legal, finished game under a rule\n"
    "preset, and prints one line per file:\n"
    "  PATH: legal (N players, winner W, D days)\n"
    "  PATH:LINE: illegal: REASON        followed by the offending line\n"
    "A log that stops before its result line (an abandoned or crashed game) is\n"
    "reported as illegal with the reason 'incomplete log'. A game that an\n"
    "error ratio ended (too many agents failed: error lines, the NLP presets)\n"
    "is legal with 'winner NONE: abandoned, K agents failed'.\n"
    "\n"
    "options:\n";
static const char check_foot[] =
    "\n"
    "The rules: without --preset, each log is checked under the rules it was\n"
    "played under, read from the file beside it that play, serve and contest\n"
    "write: LOG.rules (LOG without .gz), else aiwolf.rules in its folder, else a\n"
    "contest's contest.cfg above its logs/ folder; with none of them, the aiwolf\n"
    "preset. When a log is illegal under those rules but legal under a preset,\n"
    "a hint line says which.\n"
    "\n"
    "A LOG compressed with gzip (a .gz file, or anything starting with the gzip\n"
    "magic bytes, standard input too) is read as the log it holds.\n"
    "\n"
    "Talk texts are not checked against the protocol here (aiwolf protocol\n"
    "does that); everything else about the game is, see docs/log-format.md.\n"
    "\n"
    "exit status: 0 all logs legal, 1 some log illegal or incomplete,\n"
    "             2 bad usage or a file that cannot be read\n"
    "             (a truncated, damaged or oversized .gz too)\n";

static int validate_text(void *ud, const char *text, size_t len, aw_validation mode, aw_error *err)
{
    (void)ud;
    return aw_protocol_validate(text, len, mode, err);
}

typedef struct check_ctx {
    aw_cli_rules rules;
    const aw_logcheck_options *opt;
    bool quiet;
    const char *text; /* the log being checked */
    size_t len;
} check_ctx;

static bool legal_under(void *ud, const aw_settings *rules)
{
    check_ctx *c = ud;
    aw_logcheck_report rep;
    aw_error err;
    return aw_logcheck(c->text, c->len, rules, c->opt, &rep, &err) == AW_LOG_LEGAL;
}

static int check_one(void *ud, const char *path, const char *text, size_t len)
{
    check_ctx *c = ud;
    aw_settings rules;
    char source[4200];
    int rs = aw_cli_log_rules("check", path, &c->rules, &rules, source, sizeof source);
    if (rs)
        return rs;
    aw_logcheck_report rep;
    aw_error err;
    int v = aw_logcheck(text, len, &rules, c->opt, &rep, &err);
    if (v < 0) {
        aw_cli_line(stderr, "aiwolf check: %s: %s", path, err.msg);
        return 2;
    }
    if (v == AW_LOG_LEGAL) {
        if (!c->quiet && rep.abandoned)
            printf("%s: legal (%d players, winner NONE: abandoned, %d agent%s failed, %d days)\n", aw_term(path).s,
                   rep.players, rep.failed, rep.failed == 1 ? "" : "s", rep.days);
        else if (!c->quiet)
            printf("%s: legal (%d players, winner %s, %d days)\n", aw_term(path).s, rep.players,
                   aw_team_name(rep.winner), rep.days);
        return 0;
    }
    /* the reason and the line are the checker's, their bytes shown as \xNN already */
    printf("%s:%ld: illegal: %s\n", aw_term(path).s, rep.line, rep.reason);
    if (rep.text[0])
        printf("    %s\n", rep.text);
    c->text = text;
    c->len = len;
    aw_cli_preset_hint(&rules, legal_under, c, "legal", "checked", source);
    return 1;
}

int cmd_check(int argc, char **argv)
{
    const char *preset = NULL;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    bool quiet = false, strict_roles = false, show_settings = false;
    const char *roles_spec = NULL;
    int status = 0;
    if (!files) {
        fprintf(stderr, "aiwolf check: out of memory\n");
        free(files);
        return 2;
    }
    aw_cli_rule_opts ro = {0};
    aw_opt *group = aw_cli_rule_group(&ro, AW_RULE_PRESET | AW_RULE_SET | AW_RULE_ROLES,
                                      "rules to check against, instead of the log's own: aiwolf\n"
                                                     "(official server 0.6.x defaults), seed2015 (2015 contest\n"
                                                     "rules), regulation (2021-2023 contest regulation)",
                                      NULL);
        aw_opts_set_help(group, "--set",
                         "change one rule setting of those rules (repeatable), e.g.\n"
                                        "--set max_revote=0; 'aiwolf check --list-settings' lists them");
        aw_opts_set_help(group, "--roles",
                         "require this role table, e.g.\n"
                                        "SEER=1,POSSESSED=1,WEREWOLF=1,VILLAGER=2");
    aw_opt_list file_list = {files, 0, argc, NULL};
    const aw_opt opts[] = {
        {.kind = AW_OPT_GROUP, .to = group},
        {.name = "--strict-roles", .kind = AW_OPT_FLAG, .to = &strict_roles,
         .help =
               "require the official default role table for the log's\n"
               "player count (without it any role counts are accepted)"},
        {.name = "--list-settings", .kind = AW_OPT_FLAG, .to = &show_settings, .alias = "--settings",
         .help =
               "print the settings of --preset (aiwolf when not given)\n"
               "with the --set options, and exit"},
        {.name = "--quiet", .alias = "-q", .kind = AW_OPT_FLAG, .to = &quiet,
         .help =
               "print nothing for legal logs; only the illegal ones"},
        {.kind = AW_OPT_GROUP, .to = (void *)aw_cli_log_file_rows},
        {0},
    };
    const aw_opts_cmd cmd = {"check", check_head, opts, check_foot, &file_list, 0};
    int prc = aw_opts_parse(&cmd, argc, argv, 1);
    if (prc != AW_OPTS_OK) {
        status = prc == AW_OPTS_EXIT ? 0 : 2;
        goto done;
    }
    preset = ro.preset;
    roles_spec = ro.roles;
    nfiles = file_list.n;
    const char *const *sets = ro.setv;
    int nsets = ro.sets.n;

    aw_settings rules;
    aw_error err;
    memset(&err, 0, sizeof err);
    /* The player count is the log's; any valid count gives the preset's
     * rules. (Each log's own rules come in check_one; these check the
     * options and are --list-settings'.) */
    if (aw_settings_from(&rules, preset ? preset : "aiwolf", 5, sets, nsets, &err) != 0) {
        fprintf(stderr, "aiwolf check: %s\n", aw_term(err.msg).s);
        status = 2;
        goto done;
    }
    int roles[AW_NROLES];
    aw_logcheck_options opt;
    memset(&opt, 0, sizeof opt);
    opt.strict_roles = strict_roles;
    /* Talk text is judged by the protocol validator under the preset's
     * validation mode (strict: exactly the official validator). */
    opt.validate = validate_text;
    if (roles_spec) {
        int players;
        if (aw_parse_roles(roles_spec, roles, &players, &err) != 0) {
            fprintf(stderr, "aiwolf check: --roles: %s\n", aw_term(err.msg).s);
            status = 2;
            goto done;
        }
        opt.roles = roles;
    }
    if (show_settings) {
        aw_buf b;
        aw_buf_init(&b);
        aw_settings_describe(&rules, &b);
        /* players and roles come from each log, not from the preset */
        fputs("# rules in force; players and roles are read from each log's day-0 status block\n", stdout);
        for (const char *line = b.data ? b.data : ""; *line;) {
            const char *nl = strchr(line, '\n');
            size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
            if (strncmp(line, "players=", 8) != 0 && strncmp(line, "roles=", 6) != 0)
                fwrite(line, 1, n, stdout);
            line += n;
        }
        aw_buf_free(&b);
        goto done;
    }
    if (nfiles == 0) {
        fprintf(stderr, "aiwolf check: no log files given (aiwolf check --help)\n");
        status = 2;
        goto done;
    }

    check_ctx ctx = {{preset, sets, nsets}, &opt, quiet, NULL, 0};
    status = aw_cli_each_file("check", files, nfiles, check_one, &ctx);

done:
    free(files);
    return status;
}
