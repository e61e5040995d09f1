/* cmd_connect: `aiwolf connect` — a sandboxed Lua agent plays on an AIWolf
 * server (the official one or ours) over TCP, with the official
 * ClientStarter's flags. Uses netclient, luaseat, talkhooks. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "luaseat.h"
#include "luaseat_talks.h"
#include "netclient.h"
#include "talkhooks.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: aiwolf connect [-h HOST] -p PORT [-n NAME] [-r ROLE] [OPTIONS] AGENT.lua\n"
            "\n"
            "Plays a Lua agent on an AIWolf server over TCP: the official server\n"
            "(0.6.x, any client language) or 'aiwolf serve'. The agent runs in the\n"
            "sandbox as in 'aiwolf play'; a fresh instance starts at every game's\n"
            "INITIALIZE, and the connection stays up for game after game until the\n"
            "server closes it.\n"
            "\n"
            "options (-h, -p, -n, -r as the official ClientStarter):\n"
            "  -h HOST, --host HOST  the server (default: localhost)\n"
            "  -p PORT, --port PORT  its port (required; the official server's default is\n"
            "                        10000)\n"
            "  -n NAME, --name NAME  the name to give the server (default: the agent's\n"
            "                        getName)\n"
            "  -r ROLE, --role ROLE  the role to ask for when the server lets agents ask\n"
            "                        (SEER, WEREWOLF, ...; default: none)\n"
            "  --reconnect           while the server is not up, or after it goes away, try\n"
            "                        again (0.25 s, 0.5 s, ... up to every 8 s) instead of\n"
            "                        stopping\n"
            "  --watch               reload the agent file before a game when it changed (a\n"
            "                        version that does not load is reported; the old one\n"
            "                        plays on)\n"
            "  --budget MS           time per agent call (default: the server's timeLimit,\n"
            "                        or 100 ms when it sets none)\n"
            "  --memory MB           memory cap of the agent (default 64)\n"
            "  --work UNITS          also a deterministic budget per call (docs/sandbox.md)\n"
            "  --quiet               do not show what the agent prints, nor progress\n"
            "  --nlp URL             play in the NLP division instead, over WebSocket\n"
            "                        (aiwolf connect --nlp URL --help)\n"
            "  --help                this text\n"
            "\n"
            "Exit status: 0 when the server ended the session (or on Ctrl-C; another\n"
            "Ctrl-C while it stops changes nothing), 1 when\n"
            "the server could not be reached or sent something that is not the AIWolf\n"
            "wire format, 2 for bad usage or an agent file that does not load.\n");
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "aiwolf connect: ");
    fprintf(stderr, fmt, arg);
    fputs(" (aiwolf connect --help)\n", stderr);
    return 2;
}

int cmd_connect(int argc, char **argv)
{
    const char *host = "localhost", *name = NULL, *role = NULL, *agent = NULL;
    long port = -1, budget = 0, memory = 0;
    uint64_t work = 0;
    bool reconnect = false, watch = false, quiet = false;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--nlp"))
            return cmd_connect_nlp(argc, argv);
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        bool takes = !strcmp(o, "-h") || !strcmp(o, "--host") || !strcmp(o, "-p") || !strcmp(o, "--port") ||
                     !strcmp(o, "-n") || !strcmp(o, "--name") || !strcmp(o, "-r") || !strcmp(o, "--role") ||
                     !strcmp(o, "--budget") || !strcmp(o, "--memory") || !strcmp(o, "--work");
        if (takes && i + 1 >= argc)
            return bad("%s needs a value", o);
        const char *v = takes ? argv[++i] : NULL;
        if (!strcmp(o, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(o, "-h") || !strcmp(o, "--host")) {
            host = v;
        } else if (!strcmp(o, "-p") || !strcmp(o, "--port")) {
            if (aw_parse_long(v, 1, 65535, &port) != 0)
                return bad("-p: '%s' is not a port number (1 to 65535)", v);
        } else if (!strcmp(o, "-n") || !strcmp(o, "--name")) {
            if (!*v || strlen(v) > 64 || strpbrk(v, "\n\r,"))
                return bad("-n: '%s' is not a name (1 to 64 bytes, one line, no commas)", v);
            name = v;
        } else if (!strcmp(o, "-r") || !strcmp(o, "--role")) {
            if (aw_role_parse(v) == AW_ROLE_NONE) {
                char names[256], fmt[300];
                aw_role_list(names, sizeof names, ", ", false); /* role names: no '%' */
                snprintf(fmt, sizeof fmt, "-r: '%%s' is not a role (%s)", names);
                return bad(fmt, v);
            }
            role = v;
        } else if (!strcmp(o, "--budget")) {
            if (aw_parse_long(v, 1, 3600000, &budget) != 0)
                return bad("--budget: '%s' is not a number of milliseconds (1 to 3600000)", v);
        } else if (!strcmp(o, "--memory")) {
            if (aw_parse_long(v, 1, 65536, &memory) != 0)
                return bad("--memory: '%s' is not a number of megabytes (1 to 65536)", v);
        } else if (!strcmp(o, "--work")) {
            if (aw_parse_u64(v, &work) != 0 || work == 0)
                return bad("--work: '%s' is not a positive number of work units", v);
        } else if (!strcmp(o, "--reconnect")) {
            reconnect = true;
        } else if (!strcmp(o, "--watch")) {
            watch = true;
        } else if (!strcmp(o, "--quiet")) {
            quiet = true;
        } else if (o[0] == '-' && o[1]) {
            return bad("unknown option '%s'", o);
        } else if (agent) {
            return bad("one agent file only; '%s' is a second one", o);
        } else {
            agent = o;
        }
    }
    if (port < 0)
        return bad("the server's port is missing (-p PORT)%s", "");
    if (!agent)
        return bad("the agent file is missing%s", "");

    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.budget_ms = (int)budget;
    lo.memory_bytes = (size_t)memory << 20;
    lo.work_budget = work;
    lo.output = quiet ? NULL : stderr;
    lo.watch = watch;
    aw_luaseat_talks(&lo);
    aw_error err;
    aw_seat *seat = aw_luaseat_new(agent, &lo, &err);
    if (!seat) {
        fprintf(stderr, "aiwolf connect: %s\n", aw_term(err.msg).s);
        return 2;
    }
    aw_game_opts hooks;
    memset(&hooks, 0, sizeof hooks);
    aw_talkhooks_game(&hooks);
    aw_netclient_opts no;
    memset(&no, 0, sizeof no);
    no.host = host;
    no.port = (int)port;
    no.name = name;
    no.role = role;
    no.reconnect = reconnect;
    no.validate = hooks.validate;
    no.free_parsed = hooks.free_parsed;
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
