/* cmd_play: `aiwolf play` — plays one game (printing a readable record and
 * writing the official CSV log) or many games in a row (printing a summary
 * of wins by team, role and agent, and the speed). Uses game, agent, luaseat,
 * gamelog, settings. */
#define _DEFAULT_SOURCE /* realpath */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"
#include "humanseat.h"
#include "game.h"
#include "agent.h"
#include "luaseat.h"
#include "match.h"
#include "rng.h"
#include "talkhooks.h"
#include "live.h"
#include "logrules.h"

/* --help: the head, the options (the table in cmd_play), the foot. */
static const char play_head[] =
    "usage: aiwolf play [OPTIONS] AGENT.lua...\n"
    "\n"
    "Plays AIWolf games between Lua agents. The agents fill the seats in the\n"
    "order given (cycled when fewer than the players); roles are dealt at random\n"
    "from the game's seed. One game numbers the seats in that order (Agent[01]\n"
    "first); with --games each game draws its agent numbers from its own seed,\n"
    "as the official server gives numbers at random, so that no agent keeps\n"
    "the same numbers in every game (--fixed-seats: in order, every game).\n"
    "\n"
    "options:\n";
static const char play_foot[] =
    "\n"
    "Exit status: 0 when every game was played, 2 for bad usage or a broken agent\n"
    "file, 1 when a log could not be written.\n";

/* --profile: each agent file's seats' samples, merged, after the summary. */
static void print_profiles(FILE *out, aw_seat **seats, aw_seat **mirror, int players, const int *entry_of,
                           const int *mirror_entry_of, const char **entry_names, int nentries, long games)
{
    for (int e = 0; e < nentries; e++) {
        aw_profile *sum = NULL;
        int n = 0;
        for (int a = 1; a <= players; a++)
            for (int m = 0; m < 2; m++) {
                aw_seat *s = m ? mirror[a] : seats[a];
                const aw_profile *p = s && (m ? mirror_entry_of[a] : entry_of[a]) == e ? aw_luaseat_profile(s) : NULL;
                if (!p)
                    continue;
                if (!sum)
                    sum = aw_profile_new();
                aw_profile_merge(sum, p);
                n++;
            }
        if (sum)
            aw_cli_print_profile(out, entry_names[e], sum, n, games);
        aw_profile_free(sum);
    }
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "aiwolf play: ");
    fprintf(stderr, fmt, aw_term(arg).s); /* the value as typed, escaped */
    fputc('\n', stderr);
    return 2;
}

static int parse_deal(const char *spec, int players, aw_role deal[AW_MAX_PLAYERS + 1])
{
    for (int a = 0; a <= AW_MAX_PLAYERS; a++)
        deal[a] = AW_ROLE_NONE;
    const char *p = spec;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof item)
            return bad("bad --deal entry near '%s' (expected AGENT=ROLE,...)", p);
        memcpy(item, p, len);
        item[len] = '\0';
        char *eq = strchr(item, '=');
        if (!eq)
            return bad("bad --deal entry '%s' (expected AGENT=ROLE)", item);
        *eq = '\0';
        long a;
        if (aw_parse_long(item, 1, players, &a) != 0) {
            aw_cli_line(stderr, "aiwolf play: --deal: '%s' is not an agent number from 1 to %d", item, players);
            return 2;
        }
        if (deal[a] != AW_ROLE_NONE) {
            fprintf(stderr, "aiwolf play: --deal: agent %ld is given two roles\n", a);
            return 2;
        }
        for (char *c = eq + 1; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
        aw_role r = aw_role_parse(eq + 1);
        if (r == AW_ROLE_NONE)
            return bad("--deal: unknown role '%s'", eq + 1);
        deal[a] = r;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* A file to write, or standard output for "-". */
static FILE *open_out(const char *path)
{
    if (strcmp(path, "-") == 0)
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        aw_cli_line(stderr, "aiwolf play: cannot write %s: %s", path, strerror(errno));
    return f;
}

/* The outputs of play's games (match.h's before/after). */
typedef struct play_out {
    const char *log_path; /* a file for one game, a folder of SEED.log for many */
    long games;
    FILE *record;         /* the readable record (one game) */
    bool result_only;     /* one game, --quiet: the result line only */
    FILE *events;
    const char *describe;
    FILE *csv;            /* the current game's */
    aw_gamelog log;
    bool hide_over;       /* the record leaves out Over and Skip talks */
    aw_live *live;        /* --http: the games' pages */
    aw_live_game *live_game;
    const aw_settings *rules; /* the games' rules, beside their logs (logrules.h) */
    bool rules_per_log;
} play_out;

static int play_before(void *ud, long gno, uint64_t seed, aw_gamelog **log)
{
    play_out *po = ud;
    po->csv = NULL;
    if (po->log_path) {
        char path[4096];
        if (po->games > 1)
            snprintf(path, sizeof path, "%s/%llu.log", po->log_path, (unsigned long long)seed);
        else
            snprintf(path, sizeof path, "%s", po->log_path);
        if (!(po->csv = open_out(path)))
            return -1;
        aw_error err;
        if (strcmp(path, "-") != 0 && aw_logrules_beside(path, po->rules_per_log ? po->rules : NULL, &err) < 0) {
            fprintf(stderr, "aiwolf play: %s\n", aw_term(err.msg).s);
            return -1;
        }
    }
    aw_gamelog_init(&po->log, po->csv, po->record, po->events);
    po->log.result_only = po->result_only;
    if (po->describe)
        aw_talkhooks_describe(&po->log, po->describe);
    po->log.hide_over = po->hide_over;
    if (po->live) {
        char name[64];
        if (po->games == LONG_MAX)
            snprintf(name, sizeof name, "game %ld", gno + 1);
        else
            snprintf(name, sizeof name, "game %ld of %ld", gno + 1, po->games);
        po->live_game = aw_live_game_begin(po->live, &po->log, name);
    }
    *log = &po->log;
    return 0;
}

static int play_after(void *ud, long gno, aw_gamelog *log)
{
    play_out *po = ud;
    (void)gno;
    int rc = 0;
    if (aw_gamelog_flush(log) < 0) {
        fprintf(stderr, "aiwolf play: writing the game's output failed (disk full?)\n");
        rc = -1;
    }
    if (po->live_game)
        aw_live_game_end(po->live, po->live_game, true);
    po->live_game = NULL;
    aw_gamelog_free(log);
    if (po->csv && fclose(po->csv) != 0) {
        aw_cli_line(stderr, "aiwolf play: writing %s failed: %s", po->log_path, strerror(errno));
        rc = -1;
    }
    po->csv = NULL;
    return rc;
}

static const char *const *progress_names;
static bool progress_tty, progress_shown;

/* Each agent version's first fault, at once (with --games). */
static void play_first_fault(void *ud, long gno, int entry, const char *version, int agent, aw_req_kind kind,
                             const aw_seat_fault *f)
{
    (void)ud;
    /* the message is the agent's own text: escaped, as the names */
    fprintf(stderr, "%saiwolf play: [game %ld] first fault of %s%s%.8s (Agent[%02d]): %s %s: %s\n",
            progress_tty && progress_shown ? "\r\033[K" : "", gno + 1, aw_term(progress_names[entry]).s,
            version ? "@" : "", version ? aw_term(version).s : "", agent, kind == AW_REQ_NONE ? "start" : aw_req_name(kind),
            aw_fault_kind_name(f->kind), aw_term(f->msg).s);
}

/* Progress: in place on a terminal, a line every two seconds otherwise;
 * games/s, the time left, faults, and the first agent's win rate so far. */
static void play_progress(void *ud, const aw_tally *t, long games)
{
    (void)ud;
    double rate = t->secs > 0 ? t->st.games / t->secs : 0;
    char left[48] = "Ctrl-C for the summary";
    if (games != LONG_MAX && rate > 0) {
        long s = (long)((double)(games - t->st.games) / rate);
        snprintf(left, sizeof left, "%ld:%02ld left", s / 60, s % 60);
    }
    char done[40];
    if (games == LONG_MAX)
        snprintf(done, sizeof done, "%ld game%s", t->st.games, t->st.games == 1 ? "" : "s");
    else
        snprintf(done, sizeof done, "%ld/%ld games", t->st.games, games);
    long seats0, wins0;
    aw_stats_entry(&t->st, 0, &seats0, &wins0);
    double w = seats0 ? 100.0 * wins0 / seats0 : 0;
    char rs[32];
    fprintf(stderr, "%saiwolf play: %s, %s games/s, %s, faults %ld, %.40s wins %.1f%%%s", progress_tty ? "\r\033[K" : "",
            done, aw_cli_rate(rs, sizeof rs, rate), left, t->st.fault_calls, aw_term(progress_names[0]).s, w,
            progress_tty ? "" : "\n");
    fflush(stderr);
    progress_shown = true;
}

/* Ctrl-C during --games: the game under way is played out, then the
 * summary; a second Ctrl-C ends at once. */
static volatile sig_atomic_t play_stop;
static void on_interrupt(int sig)
{
    play_stop = 1;
    signal(sig, SIG_DFL);
    aw_play_stopper_kick(); /* --http: stop waiting for people and pauses */
}

/* --http's stopper: the people's seats take no more answers. */
typedef struct {
    aw_seat *humans[AW_MAX_PLAYERS + 1];
    int n;
    aw_live *live;
} play_humans;

static void close_humans(void *ud)
{
    play_humans *ph = ud;
    aw_live_stop_pace(ph->live);
    for (int a = 1; a <= ph->n; a++)
        aw_human_close(ph->humans[a]);
}

/* After the last game the pages stay up until Ctrl-C (or SIGTERM). */
static void linger(void)
{
    fprintf(stderr, "aiwolf play: the games are over; the pages stay up until Ctrl-C\n");
    play_stop = 0;
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
    while (!play_stop) {
        struct timespec ts = {0, 100000000};
        nanosleep(&ts, NULL);
    }
}

int cmd_play(int argc, char **argv)
{
    const char *describe = NULL, *log_path = NULL, *events_path = NULL;
    const char *summary_spec = NULL, *http = NULL;
    bool vs = false, hide_over = false, reveal = false;
    long humans = 0, human_timeout = 120, pace_ms = 0;
    long jobs = -1;
    long games = 1;
    uint64_t seed = 0;
    bool have_seed = false, quiet = false, list = false, watch = false, watch_live = false;
    bool profile = false, fixed_seats = false;
    int agent_output = -1;
    const char *agents[256];
    aw_opt_list agent_list = {agents, 0, 256, "too many agents"};

    aw_cli_rule_opts ro = {.preset = "aiwolf"};
    aw_opt rule_rows = {.kind = AW_OPT_GROUP,
                        .to = aw_cli_rule_group(&ro, AW_RULE_PRESET | AW_RULE_PLAYERS | AW_RULE_ROLES | AW_RULE_SET |
                                                         AW_RULE_DEAL,
                                                NULL,
                                                "players, 3..18, with the official role table\n"
                                                "(default: 5, or the number of agents if more)")};
    aw_cli_limits_opts lo;
    memset(&lo, 0, sizeof lo);
    aw_opt limit_rows = {.kind = AW_OPT_GROUP,
                         .to = aw_cli_limits_group(&lo, AW_LIMIT_BUDGET | AW_LIMIT_MEMORY | AW_LIMIT_WORK |
                                                            AW_LIMIT_ISOLATE)};
    const aw_opt opts[] = {
        rule_rows,
        {.name = "--seed", .arg = "S", .kind = AW_OPT_U64, .to = &seed, .seen = &have_seed, .bad = "'%s' is not an unsigned 64-bit integer",
         .help =
               "the game's 64-bit seed (default: drawn from the system,\n"
               "printed). Agents never see it, but a seed that can be\n"
               "guessed can be tried: use the default in contests"},
        {.name = "--games", .arg = "N", .kind = AW_OPT_LONG, .to = &games, .min = 0, .max = 1000000000L,
         .bad = "'%s' is not a number of games (0: until Ctrl-C)",
         .help =
               "play N games with seeds S, S+1, ...; print a summary\n"
               "(0: until Ctrl-C; Ctrl-C always ends with the summary\n"
               "of the games played)"},
        {.name = "--fixed-seats", .kind = AW_OPT_FLAG, .to = &fixed_seats,
         .help =
               "with --games: the seats keep their numbers in the order\n"
               "given in every game (for debugging; the summary then\n"
               "compares numbers as much as agents)"},
        {.name = "--vs", .kind = AW_OPT_FLAG, .to = &vs,
         .help =
               "head to head: exactly two agent files, games in pairs on\n"
               "one seed with the seats swapped (each plays the other's\n"
               "roles), so luck cancels; the summary gives the difference\n"
               "in win rate with its 95% interval (default 200 games)"},
        {.name = "--jobs", .arg = "J", .kind = AW_OPT_LONG, .to = &jobs, .min = 1, .max = 256, .bad = "'%s' is not a number of processes (1 to 256)",
         .help =
               "play --games on J processes (default: every core; 1 with\n"
               "--events, --watch, --agent-output or --profile); the\n"
               "summary is the one a single process gives"},
        {.name = "--summary", .arg = "FILE", .kind = AW_OPT_STR, .to = &summary_spec,
         .help =
               "also write the summary for tools: FILE.json or FILE.csv\n"
               "(or json:FILE, csv:FILE; '-' is standard output)"},
        {.name = "--log", .arg = "PATH", .kind = AW_OPT_STR, .to = &log_path,
         .help =
               "write the official CSV game log to PATH (with --games,\n"
               "PATH is a folder that receives one SEED.log per game)"},
        {.name = "--events", .arg = "FILE", .kind = AW_OPT_STR, .to = &events_path,
         .help =
               "write every event, fault and call time as JSON lines"},
        limit_rows,
        {.name = "--profile", .kind = AW_OPT_FLAG, .to = &profile,
         .help =
               "after the games, where each agent file's Lua ran: its\n"
               "functions by share of the VM instructions (sampled every\n"
               "1,000; time in C functions is not counted; one process)"},
        {.name = "--quiet", .kind = AW_OPT_FLAG, .to = &quiet,
         .help =
               "one game: print only its result line; --games: no progress"},
        {.name = "--hide-over", .kind = AW_OPT_FLAG, .to = &hide_over,
         .help =
               "the record leaves out talks and whispers that only say\n"
               "Over or Skip (turn markers and vote tallies stay)"},
        {.name = "--describe", .arg = "en|ja", .kind = AW_OPT_CHOICE, .to = &describe, .bad = "'%s' is not en or ja",
         .help =
               "the record says what each talk means, in English or\n"
               "Japanese, instead of the protocol text"},
        {.name = "--agent-output", .kind = AW_OPT_SETINT, .to = &agent_output, .min = 1,
         .help =
               "show what agents print (default: on for one game; with\n"
               "--games each line says its game)"},
        {.name = "--no-agent-output", .kind = AW_OPT_SETINT, .to = &agent_output, .min = 0,
         .help =
               "drop what agents print"},
        {.name = "--watch", .kind = AW_OPT_FLAG, .to = &watch,
         .help =
               "reload an agent file that changed before the next game\n"
               "(a version that does not load is reported; the old one plays on)"},
        {.name = "--watch-live", .kind = AW_OPT_FLAG, .to = &watch_live,
         .help =
               "also swap a changed agent's methods in during a game,\n"
               "keeping its state (see docs/agents.md, \"Hot reload\")"},
        {.name = "--http", .arg = "[HOST:]PORT", .kind = AW_OPT_STR, .to = &http,
         .help =
               "watch the games live in a browser at http://HOST:PORT/\n"
               "(HOST 127.0.0.1 unless given; PORT 0: any free port,\n"
               "printed); games run one at a time, and the pages stay\n"
               "up after the last one until Ctrl-C (docs/viewer.md);\n"
               "Ctrl-C during a game ends it at once (people's seats\n"
               "stop waiting), then the summary"},
        {.name = "--reveal", .kind = AW_OPT_FLAG, .to = &reveal,
         .help =
               "with --http: show roles, whispers and night actions as\n"
               "they happen (default: only what every agent sees, and\n"
               "the full record once a game is over)"},
        {.name = "--human", .arg = "N", .kind = AW_OPT_LONG, .to = &humans, .min = 1, .max = AW_MAX_PLAYERS, .bad = "'%s' is not a number of seats (1 to 18)",
         .help =
               "with --http: people play the first N seats, each on its\n"
               "own page (its address, with a secret token, is printed);\n"
               "the agent files fill the other seats. A night that\n"
               "asks a person nothing shows a step to confirm, so\n"
               "spectators cannot tell roles by the night's length"},
        {.name = "--pace", .arg = "MS", .kind = AW_OPT_LONG, .to = &pace_ms, .min = 0, .max = 60000, .bad = "'%s' is not a number of milliseconds (0 to 60000)",
         .help =
               "with --http: wait MS milliseconds after each public line\n"
               "of a game (a talk, a vote, a death), so people can\n"
               "follow bot games (0 to 60000, default 0)"},
        {.name = "--human-timeout", .arg = "S", .kind = AW_OPT_LONG, .to = &human_timeout, .min = 1, .max = 86400,
         .bad = "'%s' is not a number of seconds (1 to 86400)",
         .help =
               "seconds a person has for each answer (default 120); no\n"
               "answer in time gets the rules' substitute"},
        {.name = "--list-settings", .kind = AW_OPT_FLAG, .to = &list,
         .help =
               "print every setting of the chosen preset and exit"},
        {.name = "--help", .kind = AW_OPT_HELP,
         .help =
               "this text"},
        {.name = "-h", .kind = AW_OPT_HELP}, /* not listed */
        {0},
    };
    const aw_opts_cmd cmd = {"play", play_head, opts, play_foot, &agent_list, 0};
    int prc = aw_opts_parse(&cmd, argc, argv, 1);
    if (prc != AW_OPTS_OK)
        return prc == AW_OPTS_EXIT ? 0 : 2;
    if (games == 0)
        games = LONG_MAX;
    const char *preset = ro.preset, *roles = ro.roles, *deal_spec = ro.deal;
    long players = ro.players;
    const char *const *sets = ro.setv;
    int nsets = ro.sets.n;
    int nagents = agent_list.n;

    /* The rules. */
    aw_error err;
    int counts[AW_NROLES];
    int nplayers = (int)players;
    if (roles) {
        if (players)
            return bad("%s", "give --players or --roles, not both");
        if (aw_parse_roles(roles, counts, &nplayers, &err) < 0)
            return bad("--roles: %s", err.msg);
    }
    if (!nplayers)
        nplayers = nagents > 5 ? nagents : 5;
    aw_settings set;
    int base_players = nplayers < AW_MIN_PLAYERS ? AW_MIN_PLAYERS : nplayers > AW_MAX_PLAYERS ? AW_MAX_PLAYERS : nplayers;
    if (aw_settings_from(&set, preset, base_players, sets, nsets, &err) < 0)
        return bad("%s", err.msg);
    if (roles) {
        memcpy(set.role_count, counts, sizeof counts);
        set.players = nplayers;
    }
    if (lo.limits.budget_ms)
        set.time_limit_ms = lo.limits.budget_ms;
    if (aw_settings_check_playable(&set, &err) < 0)
        return bad("%s", err.msg);
    if (list) {
        aw_buf b;
        aw_buf_init(&b);
        aw_settings_describe(&set, &b);
        fputs(b.data, stdout);
        aw_buf_free(&b);
        return 0;
    }
    /* --summary FILE.json|FILE.csv, or json:FILE / csv:FILE ("-": stdout):
     * a row of the summary's formats (aw_tally_writers). */
    const aw_report_writer *summary_w = NULL;
    const char *summary_path = NULL;
    if (summary_spec && !(summary_w = aw_report_writer_spec(aw_tally_writers, summary_spec, &summary_path)))
        return bad(strcmp(summary_spec, "-") == 0
                       ? "--summary: '%s' does not say a format: json:- or csv:- for standard output"
                       : "--summary: '%s' is neither FILE.json, FILE.csv, json:FILE nor csv:FILE",
                   summary_spec);
    char why[1200];
    if (summary_path && aw_cli_writable_later(summary_path, why, sizeof why) < 0)
        return bad("--summary: %s", why);
    if (vs && nagents != 2)
        return bad("%s", "--vs takes exactly two agent files (aiwolf play --vs --games 1000 mine.lua theirs.lua)");
    if (vs && games == 1)
        games = 200;
    if (vs && games != LONG_MAX && games % 2)
        games++; /* whole mirrored pairs */
    if (log_path && strcmp(log_path, "-") == 0 && games != 1)
        return bad("--log %s: standard output takes one game's log; with --games give a folder (one SEED.log a game)",
                   log_path);
    if (vs && deal_spec)
        return bad("%s", "--vs deals the roles itself (the same deal twice, mirrored): drop --deal");
    char http_host[256];
    int http_port = 0;
    if (http && aw_cli_parse_http(http, http_host, sizeof http_host, &http_port) < 0)
        return bad("--http: '%s' is not [HOST:]PORT (e.g. 8080 or 0.0.0.0:8080)", http);
    if (!http && (reveal || humans || pace_ms))
        return bad("%s needs --http (the pages it is for)", reveal ? "--reveal" : humans ? "--human" : "--pace");
    if (humans && vs)
        return bad("%s", "--human does not go with --vs (the seats are swapped between the agent files)");
    if (humans > set.players) {
        fprintf(stderr, "aiwolf play: --human %ld: the games have %d players\n", humans, set.players);
        return 2;
    }
    /* Many games use every core unless something must be written by one
     * process in order (events, agent output, reload messages, the live
     * pages). */
    static const char http_flag[] = "--http";
    const char *one_process = events_path ? "--events" : watch ? "--watch" : watch_live ? "--watch-live"
                              : agent_output == 1 ? "--agent-output" : profile ? "--profile"
                              : http ? http_flag : NULL;
    if (jobs > 1 && one_process)
        return bad(http && one_process == http_flag ? "%s plays its games one at a time in this process: use --jobs 1"
                                                    : "%s is written by one process: use --jobs 1",
                   one_process);
    if (jobs < 0)
        jobs = games > 1 && !one_process && !lo.limits.isolate ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
    if (watch && games == 1)
        return bad("%s", "--watch reloads an agent between games: give --games N (0: until Ctrl-C), or "
                         "--watch-live for changes during one game");
    if (lo.limits.isolate && profile)
        return bad("%s", "--profile does not work with --isolate yet (the agents run in confined children)");
    if (lo.limits.isolate && (watch || watch_live))
        return bad("%s", "--watch does not work with --isolate yet (a confined child cannot read the file)");
    if (nagents == 0 && humans < set.players)
        return bad("%s", "no agents given (aiwolf play agents/sample.lua ...)");
    if (nagents > set.players - humans) {
        fprintf(stderr, "aiwolf play: %d agents given for %d players%s\n", nagents, (int)(set.players - humans),
                humans ? " besides the human seats" : "");
        return 2;
    }
    aw_role deal[AW_MAX_PLAYERS + 1];
    if (deal_spec && parse_deal(deal_spec, set.players, deal) != 0)
        return 2;
    if (!have_seed)
        seed = aw_rng_os_seed(); /* a guessable seed would give the deal away (rng.h) */

    /* The seats. */
    if (agent_output < 0)
        agent_output = games == 1 && !quiet;
    aw_agent_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.limits = lo.limits;
    ao.limits.budget_ms = set.time_limit_ms;
    ao.output = agent_output ? stderr : NULL;
    ao.watch = watch;
    ao.watch_live = watch_live;
    ao.number_games = games > 1 && !lo.limits.isolate; /* (a child seat counts one game per child) */
    ao.profile = profile;
    /* A word that is not a file is more likely a mistyped option. */
    for (int i = 0; i < nagents; i++) {
        struct stat st;
        if (stat(agents[i], &st) != 0) {
            aw_cli_line(stderr, "aiwolf play: no agent file '%s' (aiwolf play --help for the options)", agents[i]);
            return 2;
        }
        if (S_ISDIR(st.st_mode)) {
            aw_cli_line(stderr, "aiwolf play: '%s' is a folder: give an agent's .lua file", agents[i]);
            return 2;
        }
    }
    /* The same file given twice is one entry (one row in the summary). */
    int entry_of_arg[256];
    const char *entry_names[256];
    int nentries = 0;
    for (int i = 0; i < nagents; i++) {
        char ri[PATH_MAX], rj[PATH_MAX];
        entry_of_arg[i] = -1;
        for (int j = 0; j < i && entry_of_arg[i] < 0; j++)
            if (realpath(agents[i], ri) && realpath(agents[j], rj) && strcmp(ri, rj) == 0)
                entry_of_arg[i] = entry_of_arg[j];
        if (entry_of_arg[i] < 0) {
            entry_of_arg[i] = nentries;
            entry_names[nentries++] = agents[i];
        }
    }
    if (vs && nentries != 2)
        return bad("%s", "--vs needs two different agent files");
    int human_entry = -1;
    if (humans) {
        human_entry = nentries;
        entry_names[nentries++] = "human";
    }
    aw_seat *seats[AW_MAX_PLAYERS + 1] = {0}, *mirror[AW_MAX_PLAYERS + 1] = {0};
    int rc = 0;
    /* --http: the pages, on a thread of their own; people's seats first. */
    aw_web *web = NULL;
    aw_live *live = NULL;
    aw_play_stopper *stopper = NULL;
    play_humans ph = {{0}, 0, NULL};
    if (http) {
        aw_web_opts wo;
        memset(&wo, 0, sizeof wo);
        wo.host = http_host;
        wo.port = http_port;
        if (!(web = aw_web_start_thread(&wo, &err))) {
            fprintf(stderr, "aiwolf play: --http %s: %s\n", http, aw_term(err.msg).s);
            return 2;
        }
        live = aw_live_new(web, reveal);
        aw_live_set_pace(live, (int)pace_ms);
        ph.live = live;
        for (int a = 1; a <= humans; a++) {
            char name[32];
            snprintf(name, sizeof name, "human%d", a);
            aw_seat *h = aw_live_human(live, a, name, (uint64_t)human_timeout * 1000, &err);
            if (!h) {
                fprintf(stderr, "aiwolf play: %s\n", aw_term(err.msg).s);
                rc = 2;
                goto done;
            }
            seats[a] = aw_live_human_borrow(h);
            ph.humans[++ph.n] = h;
        }
        stopper = aw_play_stopper_start(close_humans, &ph);
        aw_live_print_urls(live, stderr, http_host, aw_web_port(web));
    }
    for (int a = (int)humans + 1; a <= set.players; a++) {
        const char *path = agents[(a - humans - 1) % nagents];
        seats[a] = aw_agent_new(path, &ao, &err);
        if (seats[a] && vs) {
            /* The mirror game: the other agent in this seat. */
            const char *other = agents[a % 2];
            mirror[a] = aw_agent_new(other, &ao, &err);
        }
        if (!seats[a] || (vs && !mirror[a])) {
            fprintf(stderr, "aiwolf play: %s\n", aw_term(err.msg).s);
            rc = 2;
            goto done;
        }
    }

    /* The outputs. */
    FILE *events = NULL;
    if (events_path && !(events = open_out(events_path))) {
        rc = 2;
        goto done;
    }
    if (log_path && games > 1 && mkdir(log_path, 0777) != 0 && errno != EEXIST) {
        aw_cli_line(stderr, "aiwolf play: cannot create the folder %s: %s", log_path, strerror(errno));
        rc = 2;
        goto close_events;
    }

    /* One game: the record, or with --quiet its result line alone (on
     * standard error when standard output carries the events or the log). */
    bool stdout_taken = events == stdout || (log_path && strcmp(log_path, "-") == 0);
    /* When --events - or --log - takes standard output, the record (or the
     * --quiet result line) goes to standard error, never mixed into it. */
    FILE *record = games != 1 ? NULL : stdout_taken ? stderr : stdout;
    /* One game's record on stdout and the agents' output on stderr may go
     * to the same file: write each record line at once, so that they
     * interleave in the order they happened. */
    if (record == stdout)
        setvbuf(stdout, NULL, _IOLBF, 0);
    play_out po = {log_path, games, record, games == 1 && quiet, events, describe, NULL, {0}, hide_over, live, NULL,
                   &set, false};
    if (log_path && games == 1) {
        po.rules_per_log = true;
    } else if (log_path) {
        /* One aiwolf.rules for the folder, or LOG.rules for each log when
         * the folder's says other rules (an earlier run's). */
        int claimed = aw_logrules_claim_folder(log_path, &set, &err);
        if (claimed < 0) {
            aw_cli_line(stderr, "aiwolf play: %s", err.msg);
            rc = 2;
            goto close_events;
        }
        po.rules_per_log = claimed == 0;
    }
    aw_match_opts mo;
    memset(&mo, 0, sizeof mo);
    mo.game.settings = &set;
    mo.game.seed = seed;
    mo.game.deal = deal_spec ? deal : NULL;
    aw_talkhooks_game(&mo.game);
    mo.games = games;
    int entry_of[AW_MAX_PLAYERS + 1], mirror_entry_of[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= set.players; a++) {
        entry_of[a] = a <= humans ? human_entry : entry_of_arg[(a - humans - 1) % nagents];
        mirror_entry_of[a] = 1 - entry_of[a];
    }
    mo.entry_of = entry_of;
    /* Many games: numbers drawn per game, from the game's seed (match.h). */
    mo.draw_numbers = games != 1 && !fixed_seats;
    if (vs) {
        mo.mirror = mirror;
        mo.mirror_entry_of = mirror_entry_of;
    }
    mo.before = play_before;
    mo.after = play_after;
    mo.progress = games > 1 && !quiet ? play_progress : NULL;
    mo.first_fault = games > 1 && !quiet ? play_first_fault : NULL;
    mo.jobs = (int)jobs;
    mo.ud = &po;
    if (games > 1 || live) {
        mo.stop = &play_stop;
        signal(SIGINT, on_interrupt);
    }
    aw_tally tally;
    aw_tally_init(&tally, nentries);
    progress_names = entry_names;
    progress_tty = isatty(2);
    int mrc = aw_match_run(&mo, seats, &tally, &err);
    if (progress_tty && mo.progress && progress_shown)
        fputc('\n', stderr);
    if (mrc == AW_MATCH_STOPPED || tally.output_errors)
        rc = 1;
    if (mrc == AW_MATCH_FAILED) {
        fprintf(stderr, "aiwolf play: %s\n", aw_term(err.msg).s);
        rc = 2;
    }
    if (mrc == AW_MATCH_INTERRUPTED)
        fprintf(stderr, "aiwolf play: interrupted after %ld game%s\n", tally.st.games, tally.st.games == 1 ? "" : "s");
    /* The summary for people (and the profile) on standard error when
     * standard output carries what tools read: the events, the log or the
     * --summary rows. */
    FILE *human = stdout_taken || (summary_path && strcmp(summary_path, "-") == 0) ? stderr : stdout;
    if (games > 1 && tally.st.games > 0)
        aw_tally_print(&tally, human, &set, seed, entry_names);
    if (summary_path && tally.st.games > 0) {
        FILE *sf = strcmp(summary_path, "-") == 0 ? stdout : fopen(summary_path, "w");
        if (!sf) {
            aw_cli_line(stderr, "aiwolf play: cannot write %s: %s", summary_path, strerror(errno));
            rc = 1;
        } else {
            aw_tally_write(summary_w, &tally, sf, &set, seed, entry_names);
            if (sf == stdout ? fflush(sf) != 0 : fclose(sf) != 0) {
                aw_cli_line(stderr, "aiwolf play: writing %s failed", summary_path);
                rc = 1;
            }
        }
    }
    if (profile && tally.st.games > 0)
        print_profiles(human, seats, mirror, set.players, entry_of, mirror_entry_of, entry_names, nentries,
                       tally.st.games);
    aw_tally_free(&tally);
    if (live && mrc != AW_MATCH_INTERRUPTED && !play_stop)
        linger();
close_events:
    if (events && (events == stdout ? fflush(events) : fclose(events)) != 0) {
        aw_cli_line(stderr, "aiwolf play: writing %s failed: %s", events_path, strerror(errno));
        rc = 1;
    }
done:
    aw_play_stopper_end(stopper);
    /* The pages first: no callback of theirs may run once the seats go. */
    if (web)
        aw_web_stop(web);
    for (int a = 1; a <= set.players; a++) {
        if (seats[a])
            seats[a]->ops->free(seats[a]);
        if (mirror[a])
            mirror[a]->ops->free(mirror[a]);
    }
    aw_live_free(live);
    return rc;
}
