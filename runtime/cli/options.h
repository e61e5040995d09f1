/* options: a command's options as one table. Each row names an option, what
 * it takes, where its value goes and its --help text; aw_opts_parse reads
 * argv against the table and aw_opts_help prints the options part of --help
 * from the same rows, so an option cannot be parsed and left out of the help
 * or the other way round. The rule options shared by play, serve, contest,
 * check and replay (--preset, --set, --roles, --deal, --players) are one
 * group, aw_cli_rule_group, that a command's table includes; so are an
 * agent's limits (--budget, --memory, --work, --isolate), aw_cli_limits_group,
 * which fill one aw_limits value (core/agentlimits.h). */
#ifndef AW_CLI_OPTIONS_H
#define AW_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "agent.h"

typedef enum aw_opt_kind {
    AW_OPT_END = 0, /* the end of a table */
    AW_OPT_HELP,    /* prints the command's --help; aw_opts_parse returns AW_OPTS_EXIT */
    AW_OPT_FLAG,    /* bool *to = true (takes no value) */
    AW_OPT_UNFLAG,  /* bool *to = false (takes no value) */
    AW_OPT_SETINT,  /* int *to = min (takes no value) */
    AW_OPT_STR,     /* const char **to = the value (argv's own string) */
    AW_OPT_LONG,    /* long *to = a whole number from min to max */
    AW_OPT_INT,     /* int *to = a whole number from min to max (max <= INT_MAX) */
    AW_OPT_U64,     /* uint64_t *to = an unsigned 64-bit number, at least min (0 or 1) */
    AW_OPT_MIB,     /* size_t *to = a number of MiB from min to max, in bytes (max < 2^44) */
    AW_OPT_CHOICE,  /* const char **to = the value, one of the words of arg ("en|ja") */
    AW_OPT_LIST,    /* aw_opt_list *to: the value appended (repeatable) */
    AW_OPT_CALL,    /* call(to, value): 0 taken, -1 bad value (message: bad), 2 said why itself */
    AW_OPT_GROUP,   /* the rows of the table `to` (aw_opt *), here in parse and help */
    AW_OPT_NOTE,    /* a line of --help only ("--  end of options"), never matched */
} aw_opt_kind;

/* Values of a repeatable option, or a command's operands. */
typedef struct aw_opt_list {
    const char **v;       /* room for max values; the strings are argv's */
    int n, max;
    const char *toomany;  /* the message when one more is given: "too many --set options" */
} aw_opt_list;

typedef struct aw_opt {
    const char *name;  /* "--players" */
    const char *alias; /* "-n", or NULL */
    const char *arg;   /* the value's name in --help ("N"), NULL for an option that takes none */
    aw_opt_kind kind;
    void *to;          /* where the value goes (see the kinds) */
    long min, max;     /* LONG/INT/MIB: the range; U64: the least value; SETINT: the value */
    const char *bad;   /* a bad value's message after "NAME: ", with %s for the value;
                        * NULL: "'V' is not a number from MIN to MAX" (or the kind's own) */
    const char *help;  /* --help's text: lines separated by '\n' */
    int (*call)(void *to, const char *value);
    bool *seen;        /* set true when the option is given, or NULL */
} aw_opt;

/* A command: its name for messages ("aiwolf NAME: ..."), its --help (head,
 * the options from the table, foot: printf formats without arguments, so
 * "%%" is a percent sign, as the commands' usage texts were), its table and
 * where its operands go (NULL: it takes none). */
typedef struct aw_opts_cmd {
    const char *name;
    const char *head;
    const aw_opt *opts;
    const char *foot;
    aw_opt_list *operands;
    int col; /* --help's column for the help texts; 0: two spaces past the longest option */
} aw_opts_cmd;

enum { AW_OPTS_OK = 0, AW_OPTS_EXIT = -1, AW_OPTS_BAD = 2 };

/* Reads argv[first..argc) against the table: "--name value", "--name=value",
 * "-a value" for an alias; "--" ends the options (what follows is operands,
 * "-x" too), and "-" alone is an operand. Each given option's value goes to
 * its target at once, in the order given, so a repeated option's last value
 * is the one kept (a LIST keeps them all). Returns AW_OPTS_OK, AW_OPTS_EXIT
 * after printing --help to stdout (the command exits 0), or AW_OPTS_BAD having
 * said why on stderr: "aiwolf NAME: MESSAGE (aiwolf NAME --help)" for an
 * unknown option, a missing value, a value given to an option that takes
 * none, a bad value, or one operand or repeated value too many. */
int aw_opts_parse(const aw_opts_cmd *cmd, int argc, char **argv, int first);

/* The command's --help: head, the table's rows ("  -a ARG, --name ARG" and
 * the help text in a column two spaces past the longest of them), foot. */
void aw_opts_help(FILE *out, const aw_opts_cmd *cmd);

/* The shared rule options. The rows a command takes are chosen by `which`;
 * a command that takes one of them takes the same text and checks. */
enum {
    AW_RULE_PRESET = 1 << 0,  /* --preset P */
    AW_RULE_PLAYERS = 1 << 1, /* -n/--players N: 3 to 18 */
    AW_RULE_ROLES = 1 << 2,   /* --roles SPEC */
    AW_RULE_SET = 1 << 3,     /* --set NAME=VALUE (repeatable) */
    AW_RULE_DEAL = 1 << 4,    /* --deal A=ROLE,... */
};
#define AW_RULE_MAX_SETS 64
typedef struct aw_cli_rule_opts {
    const char *preset;   /* as given, or what the command set before */
    long players;         /* 0 when not given */
    const char *roles;
    const char *deal;
    const char *setv[AW_RULE_MAX_SETS];
    aw_opt_list sets;     /* --set's values, in setv */
    bool have_preset, have_players;
    aw_opt rows[6];       /* the group's table, made by aw_cli_rule_group */
} aw_cli_rule_opts;

/* Fills r's rows for the options in `which` (r's other fields are kept,
 * for a command's defaults) and returns them, for an AW_OPT_GROUP row's
 * `to`. preset_help and players_help are --preset's and --players' help
 * texts when the command's defaults differ from the shared ones (NULL: the
 * shared text). */
aw_opt *aw_cli_rule_group(aw_cli_rule_opts *r, unsigned which, const char *preset_help, const char *players_help);

/* A command's own help text for the row `name` of a group (rows). */
void aw_opts_set_help(aw_opt *rows, const char *name, const char *help);

/* A command's own range and bad-value message (NULL: the kind's) for the
 * row `name` of a group (rows). */
void aw_opts_set_range(aw_opt *rows, const char *name, long min, long max, const char *bad);

/* The shared options of an agent's limits, taken by play, connect and the
 * contest (and the contest's workers): they fill one aw_limits value
 * (core/agentlimits.h), which the command passes whole to aw_agent_new. The
 * rows a command takes are chosen by `which`; the shared texts and checks
 * are play's, and a command whose defaults or bounds differ says so with
 * aw_opts_set_help and aw_opts_set_range. */
enum {
    AW_LIMIT_BUDGET = 1 << 0,  /* --budget MS: 1 to 3600000 (limits.budget_ms) */
    AW_LIMIT_MEMORY = 1 << 1,  /* --memory MB: 1 to 65536 (limits.memory_bytes, in bytes) */
    AW_LIMIT_WORK = 1 << 2,    /* --work UNITS: at least 1 (limits.work_budget) */
    AW_LIMIT_ISOLATE = 1 << 3, /* --isolate (limits.isolate) */
};
typedef struct aw_cli_limits_opts {
    aw_limits limits; /* what the options give; what the command set before stays otherwise */
    bool have_budget;       /* --budget was given */
    aw_opt rows[5];         /* the group's table, made by aw_cli_limits_group */
} aw_cli_limits_opts;

/* Fills l's rows for the options in `which` (l->limits is kept, for a
 * command's defaults) and returns them, for an AW_OPT_GROUP row's `to`. */
aw_opt *aw_cli_limits_group(aw_cli_limits_opts *l, unsigned which);

/* cmd_files.c: the last rows of check's and replay's tables: -h, --help and
 * the "--" line of their --help. */
extern const aw_opt aw_cli_log_file_rows[];

#endif
