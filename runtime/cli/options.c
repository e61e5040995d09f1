/* options: a command's options as one table (options.h). */
#include "options.h"

#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "settings.h"
#include "util.h"

/* The message, made safe for a terminal (what was typed is shown, never
 * acted on), on stderr. */
static void term(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    aw_term_vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* "aiwolf NAME: MESSAGE (aiwolf NAME --help)". */
static int say(const aw_opts_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "aiwolf %s: ", cmd->name);
    aw_term_vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (aiwolf %s --help)\n", cmd->name);
    va_end(ap);
    return AW_OPTS_BAD;
}

/* The row named o (a long name or an alias), through groups. */
static const aw_opt *find(const aw_opt *t, const char *o)
{
    for (; t->kind != AW_OPT_END; t++) {
        if (t->kind == AW_OPT_GROUP) {
            const aw_opt *r = find(t->to, o);
            if (r)
                return r;
        } else if (t->kind != AW_OPT_NOTE &&
                   ((t->name && strcmp(t->name, o) == 0) || (t->alias && strcmp(t->alias, o) == 0))) {
            return t;
        }
    }
    return NULL;
}

static bool takes_value(const aw_opt *r)
{
    return r->kind != AW_OPT_HELP && r->kind != AW_OPT_FLAG && r->kind != AW_OPT_UNFLAG && r->kind != AW_OPT_SETINT;
}

static int add(const aw_opts_cmd *cmd, aw_opt_list *l, const char *v)
{
    if (l->n >= l->max)
        return say(cmd, "%s", l->toomany ? l->toomany : "too many values");
    l->v[l->n++] = v;
    return AW_OPTS_OK;
}

/* Takes one option's value (v NULL for one that takes none). */
static int take(const aw_opts_cmd *cmd, const aw_opt *r, const char *given, const char *v)
{
    long x;
    uint64_t u;
    switch (r->kind) {
    case AW_OPT_HELP:
        aw_opts_help(stdout, cmd);
        return AW_OPTS_EXIT;
    case AW_OPT_FLAG:
        *(bool *)r->to = true;
        break;
    case AW_OPT_UNFLAG:
        *(bool *)r->to = false;
        break;
    case AW_OPT_SETINT:
        *(int *)r->to = (int)r->min;
        break;
    case AW_OPT_STR:
        *(const char **)r->to = v;
        break;
    case AW_OPT_LONG:
    case AW_OPT_INT:
    case AW_OPT_MIB:
        if (aw_parse_long(v, r->min, r->max, &x) != 0) {
            if (r->bad)
                goto bad;
            return say(cmd, "%s: '%s' is not a number from %ld to %ld", given, v, r->min, r->max);
        }
        if (r->kind == AW_OPT_LONG)
            *(long *)r->to = x;
        else if (r->kind == AW_OPT_INT)
            *(int *)r->to = (int)x;
        else
            *(size_t *)r->to = (size_t)x << 20;
        break;
    case AW_OPT_U64:
        if (aw_parse_u64(v, &u) != 0 || u < (uint64_t)r->min) {
            if (r->bad)
                goto bad;
            return say(cmd, "%s: '%s' is not a %swhole number below 2^64", given, v, r->min > 0 ? "positive " : "");
        }
        *(uint64_t *)r->to = u;
        break;
    case AW_OPT_CHOICE: {
        size_t n = strlen(v);
        const char *w = r->arg;
        while (w && !(strcspn(w, "|") == n && strncmp(w, v, n) == 0)) {
            w = strchr(w, '|');
            w = w ? w + 1 : NULL;
        }
        if (!w) {
            if (r->bad)
                goto bad;
            return say(cmd, "%s: '%s' is not one of %s", given, v, r->arg);
        }
        *(const char **)r->to = v;
        break;
    }
    case AW_OPT_LIST: {
        int rc = add(cmd, r->to, v);
        if (rc != AW_OPTS_OK)
            return rc;
        break;
    }
    case AW_OPT_CALL: {
        int rc = r->call(r->to, v);
        if (rc == -1)
            goto bad;
        if (rc != 0)
            return AW_OPTS_BAD;
        break;
    }
    case AW_OPT_END:
    case AW_OPT_GROUP:
    case AW_OPT_NOTE:
        break;
    }
    if (r->seen)
        *r->seen = true;
    return AW_OPTS_OK;
bad:
    fprintf(stderr, "aiwolf %s: ", cmd->name);
    term("%s: ", given); /* the option as typed */
    term(r->bad ? r->bad : "'%s' is not a good value", v);
    fprintf(stderr, " (aiwolf %s --help)\n", cmd->name);
    return AW_OPTS_BAD;
}

int aw_opts_parse(const aw_opts_cmd *cmd, int argc, char **argv, int first)
{
    bool options = true;
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        if (!options || a[0] != '-' || a[1] == '\0') {
            if (!cmd->operands)
                return say(cmd, "unexpected argument '%s'", a);
            int rc = add(cmd, cmd->operands, a);
            if (rc != AW_OPTS_OK)
                return rc;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            options = false;
            continue;
        }
        /* --name=value */
        char name[64];
        const char *v = NULL;
        const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
        if (eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            v = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
            if (strlen(a) >= sizeof name)
                return say(cmd, "unknown option '%.40s...'", a);
        }
        const aw_opt *r = find(cmd->opts, name);
        if (!r)
            return say(cmd, "unknown option '%s'", name);
        if (takes_value(r)) {
            if (!v) {
                if (i + 1 >= argc)
                    return say(cmd, "%s needs a value", name);
                v = argv[++i];
            }
        } else if (v) {
            return say(cmd, "%s takes no value", name);
        }
        int rc = take(cmd, r, name, v);
        if (rc != AW_OPTS_OK)
            return rc;
    }
    return AW_OPTS_OK;
}

/* "  -a ARG, --name ARG" without the indent. */
static void label(const aw_opt *r, char *buf, size_t n)
{
    const char *arg = r->arg ? r->arg : "";
    const char *sp = r->arg ? " " : "";
    /* A long alias (an old spelling) is accepted, not shown. */
    if (r->alias && r->alias[1] != '-')
        snprintf(buf, n, "%s%s%s, %s%s%s", r->alias, sp, arg, r->name, sp, arg);
    else
        snprintf(buf, n, "%s%s%s", r->name, sp, arg);
}

static size_t widest(const aw_opt *t)
{
    size_t w = 0;
    for (; t->kind != AW_OPT_END; t++) {
        size_t x;
        if (t->kind == AW_OPT_GROUP) {
            x = widest(t->to);
        } else {
            char b[128];
            label(t, b, sizeof b);
            x = strlen(b);
        }
        if (x > w)
            w = x;
    }
    return w;
}

static void rows(FILE *out, const aw_opt *t, int col)
{
    for (; t->kind != AW_OPT_END; t++) {
        if (t->kind == AW_OPT_GROUP) {
            rows(out, t->to, col);
            continue;
        }
        if (!t->help) /* not listed */
            continue;
        char b[128];
        label(t, b, sizeof b);
        fprintf(out, "  %-*s", col - 2, b);
        for (const char *p = t->help; *p;) {
            const char *nl = strchr(p, '\n');
            int len = nl ? (int)(nl - p) : (int)strlen(p);
            fprintf(out, "%.*s\n", len, p);
            if (!nl || !nl[1])
                break;
            p = nl + 1;
            fprintf(out, "%*s", col, "");
        }
    }
}

void aw_opts_help(FILE *out, const aw_opts_cmd *cmd)
{
    if (cmd->head)
        fprintf(out, cmd->head, 0);
    int col = (int)widest(cmd->opts) + 4;
    rows(out, cmd->opts, cmd->col > col ? cmd->col : col);
    if (cmd->foot)
        fprintf(out, cmd->foot, 0);
}

void aw_opts_set_help(aw_opt *rows, const char *name, const char *help)
{
    for (; rows->kind != AW_OPT_END; rows++)
        if (rows->name && strcmp(rows->name, name) == 0)
            rows->help = help;
}

void aw_opts_set_range(aw_opt *rows, const char *name, long min, long max, const char *bad)
{
    for (; rows->kind != AW_OPT_END; rows++)
        if (rows->name && strcmp(rows->name, name) == 0) {
            rows->min = min;
            rows->max = max;
            rows->bad = bad;
        }
}

aw_opt *aw_cli_rule_group(aw_cli_rule_opts *r, unsigned which, const char *preset_help, const char *players_help)
{
    int n = 0;
    memset(r->rows, 0, sizeof r->rows);
    if (which & AW_RULE_PRESET)
        r->rows[n++] = (aw_opt){
            .name = "--preset", .arg = "P", .kind = AW_OPT_STR, .to = &r->preset, .seen = &r->have_preset,
            .help = preset_help ? preset_help
                                : "rule set: aiwolf (official server 0.6.x, default),\n"
                                  "seed2015 (the 2015 contest rules), regulation (2021-23)"};
    if (which & AW_RULE_PLAYERS)
        r->rows[n++] = (aw_opt){.name = "--players", .alias = "-n", .arg = "N", .kind = AW_OPT_LONG,
                                .to = &r->players, .min = AW_MIN_PLAYERS, .max = AW_MAX_PLAYERS,
                                .seen = &r->have_players, .bad = "'%s' is not a number of players (3 to 18)",
                                .help = players_help ? players_help : "players per game, 3..18 (default 5)"};
    if (which & AW_RULE_SET) {
        r->sets = (aw_opt_list){r->setv, 0, AW_RULE_MAX_SETS, "too many --set options"};
        r->rows[n++] = (aw_opt){.name = "--set", .arg = "NAME=VALUE", .kind = AW_OPT_LIST, .to = &r->sets,
                                .help = "change one rule setting (repeatable; docs/settings.md;\n"
                                        "the official names, e.g. maxTalk=3, work too)"};
    }
    if (which & AW_RULE_ROLES)
        r->rows[n++] = (aw_opt){.name = "--roles", .arg = "SPEC", .kind = AW_OPT_STR, .to = &r->roles,
                                .help = "role counts instead, e.g. SEER=1,WEREWOLF=1,VILLAGER=3"};
    if (which & AW_RULE_DEAL)
        r->rows[n++] = (aw_opt){.name = "--deal", .arg = "A=ROLE,...", .kind = AW_OPT_STR, .to = &r->deal,
                                .help = "fix roles of some seats, e.g. 1=SEER,2=WEREWOLF (A: the\n"
                                        "seat's place in the order given; with --games the role\n"
                                        "follows that seat's agent to the number it is drawn)"};
    return r->rows;
}

aw_opt *aw_cli_limits_group(aw_cli_limits_opts *l, unsigned which)
{
    int n = 0;
    memset(l->rows, 0, sizeof l->rows);
    if (which & AW_LIMIT_BUDGET)
        l->rows[n++] = (aw_opt){.name = "--budget", .arg = "MS", .kind = AW_OPT_INT, .to = &l->limits.budget_ms,
                                .min = 1, .max = 3600000, .seen = &l->have_budget,
                                .bad = "'%s' is not a number of milliseconds (1 to 3600000)",
                                .help = "time per agent call (default: the preset's)"};
    if (which & AW_LIMIT_MEMORY)
        l->rows[n++] = (aw_opt){.name = "--memory", .arg = "MB", .kind = AW_OPT_MIB, .to = &l->limits.memory_bytes,
                                .min = 1, .max = 65536, .bad = "'%s' is not a number of megabytes (1 to 65536)",
                                .help = "memory cap per agent (default 64)"};
    if (which & AW_LIMIT_WORK)
        l->rows[n++] = (aw_opt){.name = "--work", .arg = "UNITS", .kind = AW_OPT_U64, .to = &l->limits.work_budget,
                                .min = 1, .bad = "'%s' is not a positive number of work units",
                                .help = "also a deterministic budget per call, in work units (VM\n"
                                        "instructions plus library work; docs/sandbox.md): the same\n"
                                        "agent stops at the same point on any machine and load"};
    if (which & AW_LIMIT_ISOLATE)
        l->rows[n++] = (aw_opt){.name = "--isolate", .kind = AW_OPT_FLAG, .to = &l->limits.isolate,
                                .help = "run each agent in its own confined child process, kept\n"
                                        "across games (docs/isolation.md)"};
    return l->rows;
}
