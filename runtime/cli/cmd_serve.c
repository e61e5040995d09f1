/* cmd_serve: `aiwolf serve` — an AIWolf server over TCP: agents in any
 * language that speak the official wire format (the official Java and
 * Python agents, `aiwolf connect`) play on our engine, beside sandboxed Lua
 * agents of this process if asked. Uses netserver, agent, talkhooks,
 * match. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "agent.h"
#include "cli.h"
#include "options.h"
#include "live.h"
#include "logrules.h"
#include "netserver.h"
#include "rng.h"
#include "serve_nlp.h"
#include "talkhooks.h"

/* --help: the head, the options (the table in cmd_serve), the foot. */
static const char serve_head[] =
    "usage: aiwolf serve [-p PORT] [-n PLAYERS] [OPTIONS]\n"
    "\n"
    "Hosts AIWolf games over TCP for agents that speak the official wire format\n"
    "(the official Java and Python agents, or 'aiwolf connect'). Each connection\n"
    "is asked its NAME and waits; a game starts when enough agents wait, and\n"
    "they stay connected from game to game. Seats may also be given to Lua\n"
    "agents run here (--agent), so one remote agent can play local opponents.\n"
    "As on the official server, each connection gets an agent number at random\n"
    "when it joins and keeps it for every game; so do the local seats (drawn\n"
    "from the seed); only the roles are dealt anew each game.\n"
    "\n"
    "options:\n";
static const char serve_foot[] =
    "\n"
    "Exit status: 0 when every game was played (or on Ctrl-C), 1 when an output\n"
    "could not be written, 2 for bad usage or a port that cannot be used.\n";

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "aiwolf serve: ");
    fprintf(stderr, fmt, aw_term(arg).s); /* the value as typed, escaped */
    fputs(" (aiwolf serve --help)\n", stderr);
    return 2;
}

typedef struct serve_ctx {
    const char *agent_path[AW_MAX_PLAYERS + 1];
    aw_seat *human[AW_MAX_PLAYERS + 1]; /* --human: owned by live */
    aw_live *live;
    aw_agent_opts ao; /* the local agents' */
    const char *log_dir;
    FILE *events;
    const aw_settings *rules; /* each log's LOG.rules (rules_per_log) */
    bool rules_per_log;
    bool say_port;         /* -p 0: say the port taken */
    bool log_failed;       /* a game's log could not be written: the run ended, status 1 */
    const char *http_host; /* --http: the pages' links, said once both listen */
    int http_port;
} serve_ctx;

/* One game's outputs (games may run at the same time). */
typedef struct game_out {
    aw_gamelog log; /* first: after() gets &log back */
    aw_live_game *live;
    FILE *csv;
    char path[4096];
} game_out;

static aw_seat *make_local(void *ud, int agent, aw_error *err)
{
    serve_ctx *c = ud;
    if (c->human[agent])
        return aw_live_human_borrow(c->human[agent]);
    return aw_agent_new(c->agent_path[agent], &c->ao, err);
}

/* Only human seats answer later (make_local). */
static int local_take(void *ud, aw_seat *seat, aw_seat_reply *reply, aw_seat_fault *fault, uint64_t *deadline)
{
    (void)ud;
    return aw_live_human_take(seat, reply, fault, deadline);
}

static void local_watch(void *ud, aw_seat *seat, void (*ready)(void *ready_ud), void *ready_ud)
{
    (void)ud;
    aw_live_human_on_ready(seat, ready, ready_ud);
}

static volatile sig_atomic_t serve_stop;
static void on_stop(int sig)
{
    serve_stop = 1;
    signal(sig, SIG_DFL);
}

/* The length of a folder's name without its trailing slashes ("/" stays):
 * DIR/ and DIR name their logs DIR/SEED.log alike. */
static int dir_len(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    return n > 1 || dir[0] != '/' ? (int)(n > 4000 ? 4000 : n) : 0;
}

static int before(void *ud, long gno, uint64_t seed, aw_gamelog **log)
{
    serve_ctx *c = ud;
    game_out *g = calloc(1, sizeof *g);
    if (!g)
        return AW_NETSERVER_RETRY; /* memory may come back */
    if (c->log_dir) {
        snprintf(g->path, sizeof g->path, "%.*s/%llu.log", dir_len(c->log_dir), c->log_dir, (unsigned long long)seed);
        if (!(g->csv = fopen(g->path, "w"))) {
            int e = errno;
            aw_cli_line(stderr, "aiwolf serve: cannot write %s: %s", g->path, strerror(e));
            free(g);
            /* out of descriptors or memory: the game waits and is tried
             * again; anything else (a folder that cannot be written) ends
             * the run */
            if (e == EMFILE || e == ENFILE || e == ENOMEM)
                return AW_NETSERVER_RETRY;
            c->log_failed = true;
            return -1;
        }
        aw_error err;
        if (aw_logrules_beside(g->path, c->rules_per_log ? c->rules : NULL, &err) < 0)
            fprintf(stderr, "aiwolf serve: %s\n", aw_term(err.msg).s);
    }
    aw_gamelog_init(&g->log, g->csv, NULL, c->events);
    if (c->live) {
        char name[64];
        snprintf(name, sizeof name, "game %ld", gno + 1);
        g->live = aw_live_game_begin(c->live, &g->log, name);
    }
    *log = &g->log;
    return 0;
}

static int after(void *ud, long gno, aw_gamelog *log, bool finished)
{
    serve_ctx *c = ud;
    (void)gno;
    game_out *g = (game_out *)log;
    int rc = aw_gamelog_flush(log) < 0 ? -1 : 0;
    if (g->live)
        aw_live_game_end(c->live, g->live, finished);
    aw_gamelog_free(log);
    if (g->csv && fclose(g->csv) != 0)
        rc = -1;
    if (g->csv && !finished) {
        /* A game the stop abandoned: its log ends where it stopped, and its
         * name says so. */
        char to[4200];
        snprintf(to, sizeof to, "%s.unfinished", g->path);
        if (rename(g->path, to) == 0)
            aw_cli_line(stderr, "aiwolf serve: an unfinished game's log is %s", to);
    }
    free(g);
    if (rc < 0)
        fprintf(stderr, "aiwolf serve: writing a game's log failed (disk full?)\n");
    return rc;
}

/* --agent SEAT=FILE.lua */
static int agent_opt(void *to, const char *v)
{
    serve_ctx *ctx = to;
    char *end;
    long a = strtol(v, &end, 10);
    if (end == v || *end != '=' || a < 1 || a > AW_MAX_PLAYERS || !end[1])
        return -1;
    ctx->agent_path[a] = end + 1;
    return 0;
}

/* The server listens: its port (with -p 0) and the pages' links, only now
 * (a port in use must not leave a link to pages that go away at once). */
static void ready(void *ud, int port)
{
    const serve_ctx *c = ud;
    if (c->say_port) {
        FILE *out = c->events == stdout ? stderr : stdout; /* --events -: stdout is the events' */
        fprintf(out, "listening on port %d\n", port);
        fflush(out);
    }
    if (c->live)
        aw_live_print_urls(c->live, stderr, c->http_host, c->http_port);
}

int cmd_serve(int argc, char **argv)
{
    const char *bind = "127.0.0.1", *events_path = NULL, *http = NULL;
    bool reveal = false;
    long humans = 0, human_timeout = 120;
    aw_web *web = NULL;
    long port = 10000, games = 1, parallel = 1, time_limit = 0;
    long max_conn = 0, max_addr = 0, name_ms = 5000, lobby_ms = 600000, max_timeouts = 3;
    uint64_t seed = 0;
    bool have_seed = false, quiet = false, role_requests = true, fixed_seats = false, nlp = false, have_port = false;
    long max_message = 65536;
    const char *jwt_secret = NULL, *profiles_path = NULL;
    const char *profiles[AW_MAX_PLAYERS + 1];
    char *profiles_store = NULL;
    unsigned char *secret = NULL;
    size_t secret_len = 0;
    serve_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    aw_cli_rule_opts ro = {.preset = "aiwolf", .players = 5};
    aw_opt rule_rows = {.kind = AW_OPT_GROUP,
                        .to = aw_cli_rule_group(&ro, AW_RULE_PRESET | AW_RULE_PLAYERS | AW_RULE_SET,
                                                "rule set: aiwolf (default), seed2015, regulation; the\n"
                                                "NLP division's: nlp, nlp-en, nlp5, nlp13, nlp5-en,\n"
                                                "nlp13-en (docs/settings.md)",
                                                NULL)};
    const aw_opt opts[] = {
        {.name = "--port", .alias = "-p", .arg = "PORT", .kind = AW_OPT_LONG, .to = &port, .min = 0, .max = 65535,
         .seen = &have_port,
         .bad = "'%s' is not a port number (0 to 65535)",
         .help =
               "port to listen on (default 10000, as the official\n"
               "server; 0: any free port, printed)"},
        {.name = "--bind", .arg = "ADDR", .kind = AW_OPT_STR, .to = &bind,
         .help =
               "address to listen on (default 127.0.0.1, or localhost;\n"
               "0.0.0.0 or :: to accept agents from other machines;\n"
               "with --nlp IPv4 only)"},
        rule_rows,
        {.name = "--games", .arg = "G", .kind = AW_OPT_LONG, .to = &games, .min = 1, .max = 100000000,
         .bad = "'%s' is not a positive number",
         .help =
               "games to play, then stop (default 1)"},
        {.name = "--parallel", .arg = "K", .kind = AW_OPT_LONG, .to = &parallel, .min = 1, .max = 64,
         .bad = "'%s' is not a number from 1 to 64",
         .help =
               "games at once, when enough agents wait (default 1)"},
        {.name = "--seed", .arg = "S", .kind = AW_OPT_U64, .to = &seed, .seen = &have_seed, .bad = "'%s' is not an unsigned 64-bit integer",
         .help =
               "the first game's seed (game i: S+i; default: drawn from\n"
               "the system)"},
        {.name = "--time-limit", .arg = "MS", .kind = AW_OPT_LONG, .to = &time_limit, .min = 1, .max = 3600000,
         .bad = "'%s' is not a number of milliseconds (1 to 3600000)",
         .help =
               "how long a remote agent may take to answer (default:\n"
               "the preset's timeLimit, or 1000 ms when it sets none);\n"
               "later, the rules' substitute applies"},
        {.name = "--agent", .arg = "N=FILE.lua", .kind = AW_OPT_CALL, .to = &ctx, .call = agent_opt,
         .bad = "'%s' is not SEAT=FILE.lua (e.g. 2=agents/sample.lua)",
         .help =
               "local seat N is a Lua agent run here (repeatable); its\n"
               "agent number is drawn from the seed, for the whole run"},
        {.name = "--nlp", .kind = AW_OPT_FLAG, .to = &nlp,
         .help =
               "host NLP-division agents (aiwolfdial's protocol, e.g. the\n"
               "official aiwolf-nlp-agent) over WebSocket at\n"
               "ws://ADDR:PORT/ws instead of TCP agents: JSON requests\n"
               "that name agents by character (Minato, ミナト), raw text\n"
               "answers; preset nlp unless --preset says otherwise\n"
               "(nlp-en: English names and lengths); -p defaults to\n"
               "8080; a NAME given twice gets a number (docs/nlp.md)"},
        {.name = "--max-message", .arg = "BYTES", .kind = AW_OPT_LONG, .to = &max_message, .min = 256,
         .max = 16 << 20, .bad = "'%s' is not a number of bytes (256 to 16777216)",
         .help =
               "with --nlp: the longest answer taken (default 65536;\n"
               "longer: the agent is closed)"},
        {.name = "--jwt-secret", .arg = "FILE", .kind = AW_OPT_STR, .to = &jwt_secret,
         .help =
               "with --nlp: each agent must bring a JSON Web Token\n"
               "signed HS256 with the secret in FILE (its bytes, less\n"
               "trailing line breaks) for its team, as the official\n"
               "NLP server checks with authentication on: in the\n"
               "token query parameter or an Authorization: Bearer\n"
               "header; claims role PLAYER, team = its NAME less\n"
               "trailing digits; exp and nbf honoured; others closed.\n"
               "A file, not the secret itself: a command line is seen\n"
               "by every user (ps)"},
        {.name = "--profiles", .arg = "FILE", .kind = AW_OPT_STR, .to = &profiles_path,
         .help =
               "with --nlp: the profile text each character's INITIALIZE\n"
               "carries (default: ours for the 13 characters of the\n"
               "presets): blocks a blank line apart, each a name\n"
               "(Minato, ミナト) then its text; 'none': no profile"},
        {.name = "--fixed-seats", .kind = AW_OPT_FLAG, .to = &fixed_seats,
         .help =
               "local seat N is agent N (for debugging); connections\n"
               "take the other numbers"},
        {.name = "--no-role-requests", .kind = AW_OPT_UNFLAG, .to = &role_requests,
         .help =
               "do not ask remote agents ROLE before a game (by\n"
               "default they are asked, as the official server does,\n"
               "and what they ask for is dealt first come while the\n"
               "role table has room)"},
        {.name = "--log-dir", .arg = "DIR", .kind = AW_OPT_STR, .to = &ctx.log_dir,
         .help =
               "write each game's official CSV log to DIR/SEED.log"},
        {.name = "--events", .arg = "FILE", .kind = AW_OPT_STR, .to = &events_path,
         .help =
               "write every event, fault and call time as JSON lines\n"
               "('-': standard output, the summary then on standard error)"},
        {.name = "--quiet", .kind = AW_OPT_FLAG, .to = &quiet,
         .help =
               "print nothing but errors and the summary"},
        {.name = "--http", .arg = "[HOST:]PORT", .kind = AW_OPT_STR, .to = &http,
         .help =
               "watch the games live in a browser at http://HOST:PORT/\n"
               "(HOST 127.0.0.1 unless given; PORT 0: any free port,\n"
               "printed); the pages stay up after the last game until\n"
               "Ctrl-C (docs/viewer.md)"},
        {.name = "--reveal", .kind = AW_OPT_FLAG, .to = &reveal,
         .help =
               "with --http: show roles, whispers and night actions as\n"
               "they happen (default: only what every agent sees, and\n"
               "the full record once a game is over)"},
        {.name = "--human", .arg = "N", .kind = AW_OPT_LONG, .to = &humans, .min = 1, .max = AW_MAX_PLAYERS,
         .bad = "'%s' is not a number of seats (1 to 18)",
         .help =
               "with --http: people play local seats 1 to N, each on\n"
               "its own page (its address, with a secret token, is\n"
               "printed); games one at a time; a night that asks\n"
               "a person nothing shows a step to confirm\n"
               "(docs/viewer.md)"},
        {.name = "--human-timeout", .arg = "S", .kind = AW_OPT_LONG, .to = &human_timeout, .min = 1, .max = 86400,
         .bad = "'%s' is not a number of seconds (1 to 86400)",
         .help =
               "seconds a person has for each answer (default 120)"},
        {.name = "--max-connections", .arg = "N", .kind = AW_OPT_LONG, .to = &max_conn, .min = 1, .max = 100000,
         .bad = "'%s' is not a number from 1 to 100000",
         .help =
               "connections open at once; when full, the oldest\n"
               "connection not yet named is dropped to make room, and\n"
               "a new one is told so in one line and closed only when\n"
               "all are named (default: the descriptor limit, ulimit\n"
               "-n, less 64, 4 per --parallel game and 272 with\n"
               "--http; at least 16)"},
        {.name = "--max-per-address", .arg = "N", .kind = AW_OPT_LONG, .to = &max_addr, .min = 1, .max = 100000,
         .bad = "'%s' is not a number from 1 to 100000",
         .help =
               "connections open at once from one address (an IPv4\n"
               "address or an IPv6 /64; default: twice the remote\n"
               "seats of --parallel games, at least 2); when full, its\n"
               "oldest connection not yet named is dropped to make\n"
               "room, as for --max-connections"},
        {.name = "--name-timeout", .arg = "MS", .kind = AW_OPT_LONG, .to = &name_ms, .min = 1, .max = 3600000,
         .bad = "'%s' is not a number of milliseconds (1 to 3600000)",
         .help =
               "a connection that has not answered NAME by then is\n"
               "closed (default 5000)"},
        {.name = "--lobby-timeout", .arg = "MS", .kind = AW_OPT_LONG, .to = &lobby_ms, .min = 1, .max = 86400000,
         .bad = "'%s' is not a number of milliseconds (1 to 86400000)",
         .help =
               "an agent that waits for a game longer than this is\n"
               "closed (default 600000, 10 minutes); the lobby is first\n"
               "come, first served"},
        {.name = "--max-timeouts", .arg = "N", .kind = AW_OPT_LONG, .to = &max_timeouts, .min = 0, .max = 1000000,
         .bad = "'%s' is not a number from 0 to 1000000",
         .help =
               "a remote agent that lets N answers in a row pass\n"
               "--time-limit is out of its game and closed (default 3;\n"
               "0: never); under --nlp with a NAME ping (the NLP\n"
               "presets' ping_timeout_ms) the ping decides instead"},
        {.name = "--help", .kind = AW_OPT_HELP,
         .help =
               "this text"},
        {.name = "-h", .kind = AW_OPT_HELP}, /* not listed */
        {0},
    };
    const aw_opts_cmd cmd = {"serve", serve_head, opts, serve_foot, NULL, 0};
    int prc = aw_opts_parse(&cmd, argc, argv, 1);
    if (prc != AW_OPTS_OK)
        return prc == AW_OPTS_EXIT ? 0 : 2;
    const char *preset = nlp && !ro.have_preset ? "nlp" : ro.preset;
    const char *const *sets = ro.setv;
    int nsets = ro.sets.n;
    long players = ro.players;
    if (!ro.have_players && aw_settings_preset_players(preset))
        players = aw_settings_preset_players(preset); /* nlp13: 13 players */
    if (nlp && !have_port)
        port = 8080; /* the official NLP server's */
    int rc = 2;
    if (jwt_secret && !nlp)
        return bad("%s", "--jwt-secret is for --nlp: the TCP protocol has no tokens");
    if (profiles_path && !nlp)
        return bad("%s", "--profiles is for --nlp: the TCP protocol has no profiles");

    aw_settings set;
    aw_error err;
    if (aw_settings_from(&set, preset, (int)players, sets, nsets, &err) < 0) {
        rc = bad("%s", err.msg);
        goto done;
    }
    if (time_limit)
        set.time_limit_ms = (int)time_limit;
    if (aw_settings_check_playable(&set, &err) < 0) {
        rc = bad("%s", err.msg);
        goto done;
    }
    char http_host[256];
    int http_port = 0;
    if (http && aw_cli_parse_http(http, http_host, sizeof http_host, &http_port) < 0) {
        rc = bad("--http: '%s' is not [HOST:]PORT (e.g. 8080 or 0.0.0.0:8080)", http);
        goto done;
    }
    if (!http && (reveal || humans)) {
        rc = bad("%s needs --http (the pages it is for)", reveal ? "--reveal" : "--human");
        goto done;
    }
    if (humans > set.players) {
        fprintf(stderr, "aiwolf serve: --human %ld: the games have %d players\n", humans, set.players);
        goto done;
    }
    if (humans && parallel > 1) {
        rc = bad("%s", "--human plays one game at a time: drop --parallel");
        goto done;
    }
    for (int a = 1; a <= humans; a++)
        if (ctx.agent_path[a]) {
            fprintf(stderr, "aiwolf serve: seat %d is a human seat (--human %ld) and --agent %d\n", a, humans, a);
            goto done;
        }
    aw_netserver_opts no;
    memset(&no, 0, sizeof no);
    for (int a = 1; a <= AW_MAX_PLAYERS; a++) {
        if (!ctx.agent_path[a])
            continue;
        if (a > set.players) {
            fprintf(stderr, "aiwolf serve: --agent %d: the games have %d players\n", a, set.players);
            goto done;
        }
        no.local[a] = true;
        /* Check the file now, so that a broken agent is reported at once. */
        aw_seat *probe = aw_agent_new(ctx.agent_path[a], &ctx.ao, &err);
        if (!probe) {
            fprintf(stderr, "aiwolf serve: %s\n", aw_term(err.msg).s);
            goto done;
        }
        probe->ops->free(probe);
    }
    ctx.ao.limits.budget_ms = set.time_limit_ms > 0 ? set.time_limit_ms : 0;
    ctx.ao.output = quiet ? NULL : stderr;
    if (ctx.log_dir && mkdir(ctx.log_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "aiwolf serve: cannot create the folder %s: %s\n", aw_term(ctx.log_dir).s, strerror(errno));
        goto done;
    }
    if (ctx.log_dir) {
        /* The logs' rules beside them (logrules.h): the folder's
         * aiwolf.rules, or LOG.rules for each log when it says others. */
        int claimed = aw_logrules_claim_folder(ctx.log_dir, &set, &err);
        if (claimed < 0) {
            fprintf(stderr, "aiwolf serve: %s\n", aw_term(err.msg).s);
            goto done;
        }
        ctx.rules = &set;
        ctx.rules_per_log = claimed == 0;
    }
    if (events_path && !(ctx.events = strcmp(events_path, "-") == 0 ? stdout : fopen(events_path, "w"))) {
        aw_cli_line(stderr, "aiwolf serve: cannot write %s: %s", events_path, strerror(errno));
        goto done;
    }
    if (!have_seed)
        seed = aw_rng_os_seed();
    if (http) {
        aw_web_opts wo;
        memset(&wo, 0, sizeof wo);
        wo.host = http_host;
        wo.port = http_port;
        if (!(web = aw_web_start_thread(&wo, &err))) {
            fprintf(stderr, "aiwolf serve: --http %s: %s\n", http, aw_term(err.msg).s);
            goto done;
        }
        ctx.live = aw_live_new(web, reveal);
        for (int a = 1; a <= humans; a++) {
            char name[32];
            snprintf(name, sizeof name, "human%d", a);
            if (!(ctx.human[a] = aw_live_human(ctx.live, a, name, (uint64_t)human_timeout * 1000, &err))) {
                fprintf(stderr, "aiwolf serve: %s\n", aw_term(err.msg).s);
                goto done;
            }
            no.local[a] = true;
        }
        ctx.http_host = http_host;
        ctx.http_port = aw_web_port(web);
    }
    no.local_take = local_take;
    no.local_watch = local_watch;
    no.bind = bind;
    no.port = (int)port;
    no.game.settings = &set;
    no.game.seed = seed;
    aw_talkhooks_game(&no.game);
    no.games = games;
    no.parallel = (int)parallel;
    no.time_limit_ms = set.time_limit_ms > 0 ? set.time_limit_ms : 1000;
    no.role_requests = role_requests && !nlp;
    /* the web server's clients (web.h: 256 by default) and its own */
    no.max_connections = max_conn ? (int)max_conn : aw_netserver_max_connections((int)parallel, http ? 272 : 0);
    serve_nlp nt;
    memset(&nt, 0, sizeof nt);
    if (nlp) {
        /* netserver counts the connections (aw_netserver_connected); the
         * web module's own limit leaves room for those it drops, which
         * close in the next turns of the loop */
        long web_max = (long)no.max_connections + 64;
        serve_nlp_transport(&nt, bind, (int)port, (size_t)max_message, (unsigned)(web_max > 60000 ? 60000 : web_max));
        no.nlp = &nt.tp;
        if (jwt_secret) {
            if (!(secret = serve_nlp_secret(jwt_secret, &secret_len, &err))) {
                fprintf(stderr, "aiwolf serve: --jwt-secret: %s\n", aw_term(err.msg).s);
                goto done;
            }
            no.jwt_secret = secret;
            no.jwt_secret_len = secret_len;
        }
        if (profiles_path) {
            if (serve_nlp_profiles(profiles_path, &set, profiles, &profiles_store, &err) < 0) {
                fprintf(stderr, "aiwolf serve: --profiles: %s\n", err.msg);
                goto done;
            }
            no.nlp_profiles = profiles;
        }
    }
    no.fixed_seats = fixed_seats;
    no.max_per_address = (int)max_addr;
    no.name_timeout_ms = (int)name_ms;
    no.lobby_timeout_ms = (int)lobby_ms;
    no.max_timeouts = (int)max_timeouts;
    no.make_local = make_local;
    no.before = before;
    no.after = after;
    no.ud = &ctx;
    ctx.say_port = port == 0;
    no.ready = ready;
    no.log = quiet ? NULL : stderr;
    aw_tally tally;
    aw_tally_init(&tally, 2);
    if (aw_netserver_run(&no, &tally, &err) < 0) {
        fprintf(stderr, "aiwolf serve: %s\n", aw_term(err.msg).s);
        aw_tally_free(&tally);
        goto done;
    }
    const char *entries[2] = {"remote agents", "local agents"};
    if (tally.st.games)
        aw_tally_print(&tally, ctx.events == stdout ? stderr : stdout, &set, seed, entries);
    rc = tally.output_errors || ctx.log_failed ? 1 : 0;
    bool all_played = tally.st.games >= games;
    aw_tally_free(&tally);
    if (web && all_played) {
        fprintf(stderr, "aiwolf serve: the games are over; the pages stay up until Ctrl-C\n");
        signal(SIGINT, on_stop);
        signal(SIGTERM, on_stop);
        while (!serve_stop) {
            struct timespec ts = {0, 100000000};
            nanosleep(&ts, NULL);
        }
    }
done:
    serve_nlp_secret_free(secret, secret_len);
    free(profiles_store);
    /* The pages first: no callback of theirs may run once the seats go. */
    if (web)
        aw_web_stop(web);
    aw_live_free(ctx.live);
    if (ctx.events && (ctx.events == stdout ? fflush(stdout) : fclose(ctx.events)) != 0) {
        aw_cli_line(stderr, "aiwolf serve: writing %s failed", events_path);
        rc = 1;
    }
    return rc;
}
