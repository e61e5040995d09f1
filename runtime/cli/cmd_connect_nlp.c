/* cmd_connect_nlp: `aiwolf connect --nlp URL` — a sandboxed Lua agent plays
 * in the NLP division, on the official aiwolf-nlp-server (or any server of
 * its protocol) over WebSocket. Uses wsclient (web), nlpagent (wire),
 * agent, options, talkhooks. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "cli.h"
#include "nlpagent.h"
#include "options.h"
#include "talkhooks.h"
#include "wsclient.h"

/* --help: the head, the options (the table in cmd_connect_nlp), the foot. */
static const char nlp_head[] =
    "usage: aiwolf connect --nlp ws://HOST:PORT/ws [--team NAME] [--token T] [OPTIONS] AGENT.lua\n"
    "\n"
    "Plays a Lua agent in the NLP division, on the official aiwolf-nlp-server\n"
    "(WebSocket, JSON packets, talks in natural language). The agent is the same\n"
    "Lua agent as in 'aiwolf play': agents are numbered 1..N by their names\n"
    "(info.names has the names), talks arrive as text, and talk() may return free\n"
    "text or a protocol sentence, which is rendered into English or Japanese with\n"
    "the agents' names and cut to the server's length rule (docs/nlp.md). Targets\n"
    "are sent as names. A fresh instance starts at every INITIALIZE. A server\n"
    "that runs the talk as a group chat (aiwolf-nlp-common 0.7.0:\n"
    "TALK_PHASE_START, TALK_BROADCAST) is seen as such: talk() is called at the\n"
    "phase's start, then each time another agent has spoken since the agent's\n"
    "last talk came back. info.profile is the character's profile.\n"
    "\n"
    "options:\n";
static const char nlp_foot[] = AW_CONNECT_FOOT("an NLP packet");

static int bad(const char *fmt, const char *arg)
{
    return aw_connect_bad("aiwolf connect --nlp URL --help", fmt, arg);
}

/* --team NAME: 1 to 64 bytes, no control characters. */
static int team_opt(void *to, const char *v)
{
    size_t n = strlen(v);
    bool ok = n >= 1 && n <= 64;
    for (size_t k = 0; k < n && ok; k++)
        ok = (unsigned char)v[k] >= 0x20 && v[k] != 0x7f;
    if (!ok)
        return -1;
    *(const char **)to = v;
    return 0;
}

/* --token T: no spaces or control characters (it goes into a header). */
static int token_opt(void *to, const char *v)
{
    for (const char *t = v; *t; t++)
        if ((unsigned char)*t < 0x21 || *t == 0x7f)
            return -1;
    *(const char **)to = v;
    return 0;
}

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

typedef struct session {
    aw_nlp_agent agent;
    FILE *log;
    long games, faults;
    long chat_talks; /* talks sent in group chats (0.7.0), unasked */
} session;

static int on_message(void *ud, const char *msg, size_t len, aw_buf *reply, aw_error *err)
{
    session *s = ud;
    int rq = aw_nlp_agent_take(&s->agent, msg, len, err);
    if (rq < 0)
        return -1;
    bool has = false;
    aw_seat_fault f;
    aw_nlp_agent_answer(&s->agent, reply, &has, &f);
    if (has && rq >= AW_NLP_TALK_PHASE_START)
        s->chat_talks++;
    if (f.kind != AW_FAULT_NONE) {
        s->faults++;
        if (s->log)
            fprintf(s->log, "aiwolf connect: %s: the agent's %s: %s\n", aw_nlp_req_name((aw_nlp_req)rq),
                    aw_fault_kind_name(f.kind), aw_term(f.msg).s);
    }
    if (rq == AW_NLP_FINISH) {
        s->games++;
        if (s->log) {
            const aw_info *in = &s->agent.info;
            fprintf(s->log, "aiwolf connect: game %ld over (as %s, %s)\n", s->games,
                    aw_term(s->agent.names[s->agent.me] ? s->agent.names[s->agent.me] : "?").s,
                    aw_role_name(in->my_role));
        }
    }
    return has ? 1 : 0;
}

int cmd_connect_nlp(int argc, char **argv)
{
    const char *url = NULL, *team = NULL, *token = NULL, *lang = NULL, *agent_file = NULL;
    long budget = 1000, memory = 0;
    uint64_t work = 0;
    bool reconnect = false, watch = false, quiet = false;
    const char *agents[1];
    aw_opt_list agent_list = {agents, 0, 1, "one agent file only"};
    const aw_opt opts[] = {
        {.name = "--nlp", .arg = "URL", .kind = AW_OPT_STR, .to = &url,
         .help = "the server's WebSocket address (ws://127.0.0.1:8080/ws;\n"
                 "wss:// for TLS)"},
        {.name = "--team", .arg = "NAME", .kind = AW_OPT_CALL, .to = &team, .call = team_opt,
         .bad = "'%s' is not a name (1 to 64 bytes, no control characters)",
         .help = "the answer to NAME: the team name and a number, as the\n"
                 "server expects (kanolab1); default: the agent's getName"},
        {.name = "--token", .arg = "T", .kind = AW_OPT_CALL, .to = &token, .call = token_opt,
         .bad = "the token has a space or a control character",
         .help = "a JWT sent as 'Authorization: Bearer T' (servers with\n"
                 "authentication on); default: none"},
        {.name = "--lang", .arg = "en|ja", .kind = AW_OPT_CHOICE, .to = &lang,
         .help = "the language protocol sentences are rendered in\n"
                 "(default: ja when the agents' names are not ASCII)"},
        {.name = "--reconnect", .kind = AW_OPT_FLAG, .to = &reconnect,
         .help = "after the server closes the connection (the end of a\n"
                 "game), or while it is not up, connect again (1 s, 2 s,\n"
                 "... up to every 8 s) until Ctrl-C"},
        {.name = "--budget", .arg = "MS", .kind = AW_OPT_LONG, .to = &budget, .min = 1, .max = 3600000,
         .bad = "'%s' is not a number of milliseconds (1 to 3600000)",
         .help = "time per agent call (default 1000; the server allows\n"
                 "60000 per action: leave it room for the network)"},
        {.name = "--memory", .arg = "MB", .kind = AW_OPT_LONG, .to = &memory, .min = 1, .max = 65536,
         .bad = "'%s' is not a number of megabytes (1 to 65536)",
         .help = "memory cap of the agent (default 64)"},
        {.name = "--work", .arg = "UNITS", .kind = AW_OPT_U64, .to = &work, .min = 1,
         .bad = "'%s' is not a positive number of work units",
         .help = "also a deterministic budget per call (docs/sandbox.md)"},
        {.name = "--watch", .kind = AW_OPT_FLAG, .to = &watch,
         .help = "reload the agent file before a game when it changed"},
        {.name = "--quiet", .kind = AW_OPT_FLAG, .to = &quiet,
         .help = "do not show what the agent prints, nor progress"},
        {.name = "--help", .kind = AW_OPT_HELP, .help = "this text"},
        {0},
    };
    const aw_opts_cmd cmd = {"connect", nlp_head, opts, nlp_foot, &agent_list, 0};
    int prc = aw_opts_parse(&cmd, argc, argv, 1);
    if (prc != AW_OPTS_OK)
        return prc == AW_OPTS_EXIT ? 0 : 2;
    if (agent_list.n)
        agent_file = agents[0];
    if (!url)
        return bad("the server's address is missing (--nlp ws://HOST:PORT/ws)%s", "");
    aw_wsclient_opts wo;
    memset(&wo, 0, sizeof wo);
    aw_error err;
    if (aw_ws_url_parse(url, &wo.url, &err) < 0) {
        char fmt[600];
        snprintf(fmt, sizeof fmt, "--nlp: '%%s': %s", err.msg);
        return bad(fmt, url);
    }
    if (!agent_file)
        return bad("the agent file is missing%s", "");

    aw_agent_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.limits.budget_ms = (int)budget;
    aw_limits_set_memory_mib(&ao.limits, memory);
    ao.limits.work_budget = work;
    ao.output = quiet ? NULL : stderr;
    ao.watch = watch;
    aw_seat *seat = aw_agent_new(agent_file, &ao, &err);
    if (!seat) {
        fprintf(stderr, "aiwolf connect: %s\n", aw_term(err.msg).s);
        return 2;
    }
    session s;
    memset(&s, 0, sizeof s);
    s.log = quiet ? NULL : stderr;
    aw_nlp_agent_init(&s.agent, seat);
    s.agent.team = team;
    s.agent.lang = lang;
    s.agent.talk = aw_talkhooks();

    wo.token = token;
    wo.on_message = on_message;
    wo.ud = &s;
    wo.stop = &stop_flag;
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    signal(SIGPIPE, SIG_IGN);

    int rc = 0;
    long connections = 0;
    int wait_s = 1;
    while (!stop_flag) {
        aw_wsclient_stats st;
        memset(&st, 0, sizeof st);
        int r = aw_wsclient_run(&wo, &st, &err);
        if (st.connected) {
            connections++;
            wait_s = 1;
        }
        /* a broken server ends the run, even with --reconnect; one that is
         * not up ends it only without */
        if (r < 0 && (st.connected || !reconnect)) {
            fprintf(stderr, "aiwolf connect: %s\n", aw_term(err.msg).s);
            rc = 1;
            break;
        }
        if (!reconnect || stop_flag)
            break;
        if (s.log)
            fprintf(s.log, "aiwolf connect: connecting again in %d s\n", wait_s);
        struct timespec ts = {wait_s, 0};
        nanosleep(&ts, NULL); /* a signal ends the wait early */
        if (wait_s < 8)
            wait_s *= 2;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (s.log && s.agent.unknown_names)
        fprintf(s.log, "aiwolf connect: %ld name%s in the server's packets were not in the game\n",
                s.agent.unknown_names, s.agent.unknown_names == 1 ? "" : "s");
    aw_nlp_agent_free(&s.agent);
    seat->ops->free(seat);
    if (s.log && s.chat_talks)
        fprintf(s.log, "aiwolf connect: %ld talk%s in group chats\n", s.chat_talks, s.chat_talks == 1 ? "" : "s");
    if (s.log)
        fprintf(s.log, "aiwolf connect: %ld game%s played over %ld connection%s\n", s.games, s.games == 1 ? "" : "s",
                connections, connections == 1 ? "" : "s");
    return rc;
}
