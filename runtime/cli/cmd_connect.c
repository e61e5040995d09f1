/* cmd_connect: `aiwolf connect` — a sandboxed Lua agent plays on an AIWolf
 * server (the official one or ours) over TCP, with the official
 * ClientStarter's flags. Uses netclient, agent, talkhooks. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "cli.h"
#include "options.h"
#include "netclient.h"
#include "talkhooks.h"

/* --help: the head, the options (the table in cmd_connect), the foot. */
static const char connect_head[] =
    "usage: aiwolf connect [-h HOST] -p PORT [-n NAME] [-r ROLE] [OPTIONS] AGENT.lua\n"
    "\n"
    "Plays a Lua agent on an AIWolf server over TCP: the official server\n"
    "(0.6.x, any client language) or 'aiwolf serve'. The agent runs in the\n"
    "sandbox as in 'aiwolf play'; a fresh instance starts at every game's\n"
    "INITIALIZE, and the connection stays up for game after game until the\n"
    "server closes it.\n"
    "\n"
    "options (-h, -p, -n, -r as the official ClientStarter):\n";
static const char connect_foot[] = AW_CONNECT_FOOT("the AIWolf wire format");

int aw_connect_bad(const char *help, const char *fmt, const char *arg)
{
    fprintf(stderr, "aiwolf connect: ");
    aw_term_fprintf(stderr, fmt, arg);
    fprintf(stderr, " (%s)\n", help);
    return 2;
}

static int bad(const char *fmt, const char *arg)
{
    return aw_connect_bad("aiwolf connect --help", fmt, arg);
}

/* -n NAME: 1 to 64 bytes, one line, no commas. */
static int name_opt(void *to, const char *v)
{
    if (!*v || strlen(v) > 64 || strpbrk(v, "\n\r,"))
        return -1;
    *(const char **)to = v;
    return 0;
}

/* -r ROLE: a role's name. */
static int role_opt(void *to, const char *v)
{
    if (aw_role_parse(v) == AW_ROLE_NONE) {
        char names[256], fmt[300];
        aw_role_list(names, sizeof names, ", ", false); /* role names: no '%' */
        snprintf(fmt, sizeof fmt, "-r: '%%s' is not a role (%s)", names);
        return bad(fmt, v);
    }
    *(const char **)to = v;
    return 0;
}

int cmd_connect(int argc, char **argv)
{
    const char *host = "localhost", *name = NULL, *role = NULL, *agent = NULL;
    long port = -1;
    bool reconnect = false, watch = false, quiet = false;
    const char *nlp = NULL;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--nlp") || !strncmp(argv[i], "--nlp=", 6))
            return cmd_connect_nlp(argc, argv);
    /* the NLP division's own options, given without --nlp */
    static const char *const nlp_only[] = {"--team", "--token", "--lang"};
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        for (size_t k = 0; k < sizeof nlp_only / sizeof *nlp_only; k++) {
            size_t n = strlen(nlp_only[k]);
            if (!strncmp(argv[i], nlp_only[k], n) && (argv[i][n] == '\0' || argv[i][n] == '=')) {
                fprintf(stderr,
                        "aiwolf connect: %s is for the NLP division: it needs --nlp URL (aiwolf connect --nlp URL "
                        "--help)\n",
                        nlp_only[k]);
                return 2;
            }
        }
    const char *agents[1];
    aw_opt_list agent_list = {agents, 0, 1, "one agent file only"};
    aw_cli_limits_opts lo;
    memset(&lo, 0, sizeof lo);
    aw_opt *limit_rows = aw_cli_limits_group(&lo, AW_LIMIT_BUDGET | AW_LIMIT_MEMORY | AW_LIMIT_WORK);
    aw_opts_set_help(limit_rows, "--budget",
                     "time per agent call (default: the server's timeLimit,\n"
                     "or 100 ms when it sets none)");
    const aw_opt opts[] = {
        {.name = "--host", .alias = "-h", .arg = "HOST", .kind = AW_OPT_STR, .to = &host,
         .help =
               "the server (default: localhost)"},
        {.name = "--port", .alias = "-p", .arg = "PORT", .kind = AW_OPT_LONG, .to = &port, .min = 1, .max = 65535,
         .bad = "'%s' is not a port number (1 to 65535)",
         .help =
               "its port (required; the official server's default is\n"
               "10000)"},
        {.name = "--name", .alias = "-n", .arg = "NAME", .kind = AW_OPT_CALL, .to = &name, .call = name_opt, .bad = "'%s' is not a name (1 to 64 bytes, one line, no commas)",
         .help =
               "the name to give the server (default: the agent's\n"
               "getName)"},
        {.name = "--role", .alias = "-r", .arg = "ROLE", .kind = AW_OPT_CALL, .to = &role, .call = role_opt,
         .help =
               "the role to ask for when the server lets agents ask\n"
               "(SEER, WEREWOLF, ...; default: none)"},
        {.name = "--reconnect", .kind = AW_OPT_FLAG, .to = &reconnect,
         .help =
               "while the server is not up, or after it goes away, try\n"
               "again (0.25 s, 0.5 s, ... up to every 8 s) instead of\n"
               "stopping"},
        {.name = "--watch", .kind = AW_OPT_FLAG, .to = &watch,
         .help =
               "reload the agent file before a game when it changed (a\n"
               "version that does not load is reported; the old one\n"
               "plays on)"},
        {.kind = AW_OPT_GROUP, .to = limit_rows},
        {.name = "--quiet", .kind = AW_OPT_FLAG, .to = &quiet,
         .help =
               "do not show what the agent prints, nor progress"},
        {.name = "--nlp", .arg = "URL", .kind = AW_OPT_STR, .to = &nlp, /* taken before: cmd_connect_nlp */
         .help =
               "play in the NLP division instead, over WebSocket\n"
               "(aiwolf connect --nlp URL --help)"},
        {.name = "--help", .kind = AW_OPT_HELP,
         .help =
               "this text"},
        {0},
    };
    const aw_opts_cmd cmd = {"connect", connect_head, opts, connect_foot, &agent_list, 0};
    int prc = aw_opts_parse(&cmd, argc, argv, 1);
    if (prc != AW_OPTS_OK)
        return prc == AW_OPTS_EXIT ? 0 : 2;
    if (agent_list.n)
        agent = agents[0];
    if (port < 0)
        return bad("the server's port is missing (-p PORT)%s", "");
    if (!agent)
        return bad("the agent file is missing%s", "");

    aw_agent_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.limits = lo.limits;
    ao.output = quiet ? NULL : stderr;
    ao.watch = watch;
    aw_error err;
    aw_seat *seat = aw_agent_new(agent, &ao, &err);
    if (!seat) {
        fprintf(stderr, "aiwolf connect: %s\n", aw_term(err.msg).s);
        return 2;
    }
    aw_netclient_opts no;
    memset(&no, 0, sizeof no);
    no.host = host;
    no.port = (int)port;
    no.name = name;
    no.role = role;
    no.reconnect = reconnect;
    no.talk = aw_talkhooks();
    no.log = quiet ? NULL : stderr;
    aw_netclient_stats st;
    int rc = aw_netclient_run(seat, &no, &st, &err);
    seat->ops->free(seat);
    if (rc < 0) {
        fprintf(stderr, "aiwolf connect: %s\n", aw_term(err.msg).s);
        return 1;
    }
    if (!quiet)
        fprintf(stderr, "aiwolf connect: %ld game%s played over %ld connection%s\n", st.games,
                st.games == 1 ? "" : "s", st.connections, st.connections == 1 ? "" : "s");
    return 0;
}
