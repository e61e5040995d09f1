/* `aiwolf serve` with `aiwolf connect` clients over loopback, and with
 * hostile clients played by this test: whole games of 5 and 15 players,
 * several at once, local Lua seats beside remote ones, and clients that go
 * silent, answer garbage, flood, answer what needs no answer or vanish —
 * every game must still finish with a legal log, the fault in the events,
 * the server exiting 0. And `serve` with only local seats writes the same
 * log as `play` with the same seed. A connection keeps its agent number for
 * every game (a client that remembers it checks), local seats keep theirs,
 * drawn from the seed. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "net_helpers.h"
#include "test.h"
#include "wire.h"

static char dir[128];

/* Starts the server with ARGS (plus -p 0 and its output file) and returns
 * its port, or -1. */
static int serve(pid_t *pid, const char *out, char *const args[])
{
    char *all[40] = {"-p", "0"};
    int n = 2;
    for (int i = 0; args[i] && n < 39; i++)
        all[n++] = args[i];
    all[n] = NULL;
    *pid = spawn_aiwolf("serve", out, all);
    for (int i = 0; i < 6000; i++) { /* a minute: a hang guard */
        FILE *f = fopen(out, "r");
        char line[256];
        int port = -1;
        while (f && fgets(line, sizeof line, f))
            if (sscanf(line, "listening on port %d", &port) == 1)
                break;
        if (f)
            fclose(f);
        if (port > 0)
            return port;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

static void clients(int port, int n, const char *agent, pid_t *pids)
{
    char portstr[16], out[256];
    snprintf(portstr, sizeof portstr, "%d", port);
    for (int i = 0; i < n; i++) {
        snprintf(out, sizeof out, "%s/client%d.out", dir, i);
        char *args[] = {"-p", portstr, "--quiet", (char *)agent, NULL};
        pids[i] = spawn_aiwolf("connect", out, args);
    }
}

static int check_logs(const char *logdir, int want)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "n=$(ls %s/*.log 2>/dev/null | wc -l); [ \"$n\" -eq %d ] && %s check --quiet %s/*.log",
             logdir, want, bin, logdir);
    return system(cmd);
}

static void whole_games(int players, int games, int parallel)
{
    char logdir[256], out[256], g[16], n[16], par[16];
    snprintf(logdir, sizeof logdir, "%s/logs_%d_%d", dir, players, parallel);
    snprintf(out, sizeof out, "%s/serve_%d.out", dir, players);
    snprintf(g, sizeof g, "%d", games);
    snprintf(n, sizeof n, "%d", players);
    snprintf(par, sizeof par, "%d", parallel);
    char *args[] = {"-n", n, "--games", g, "--parallel", par, "--seed", "77", "--log-dir", logdir, NULL};
    pid_t spid;
    int port = serve(&spid, out, args);
    CHECK_MSG(port > 0, "the server did not start");
    if (port <= 0)
        return;
    pid_t pids[64];
    int nclients = players * parallel;
    clients(port, nclients, "agents/random.lua", pids);
    CHECK_MSG(wait_exit(spid, 60000) == 0, "%d players: the server did not finish", players);
    for (int i = 0; i < nclients; i++)
        CHECK_INT(wait_exit(pids[i], 10000), 0);
    CHECK_MSG(check_logs(logdir, games) == 0, "%d players: the logs are not %d legal games", players, games);
    char want[64];
    snprintf(want, sizeof want, "%d games of %d players", games, players);
    CHECK_MSG(file_has(out, want), "%s: no '%s'", out, want);
}

/* Starts the server with ARGS, connects one client played by this test,
 * then four `connect` clients (random.lua) into pids. Returns the test's
 * connection (-1, checked, when the server took none), or -2 (checked) when
 * the server did not start. */
static int serve_and_four(const char *out, char *const args[], pid_t *spid, pid_t pids[4])
{
    int port = serve(spid, out, args);
    CHECK(port > 0);
    if (port <= 0)
        return -2;
    int fd = connect_to(port);
    CHECK(fd >= 0);
    clients(port, 4, "agents/random.lua", pids);
    return fd;
}

enum mode { SILENT, GARBAGE, FLOOD, TOO_MUCH, VANISH, LATE };
static const char *mode_names[] = {"silent", "garbage", "flood", "too_much", "vanish", "late"};

/* One hostile client, played here, beside four connect clients. */
static void hostile(enum mode m)
{
    char logdir[256], out[256], events[256];
    snprintf(logdir, sizeof logdir, "%s/logs_%s", dir, mode_names[m]);
    snprintf(out, sizeof out, "%s/serve_%s.out", dir, mode_names[m]);
    snprintf(events, sizeof events, "%s/%s.jsonl", dir, mode_names[m]);
    char *args[] = {"-n", "5", "--seed", "5", "--time-limit", "100", "--log-dir", logdir, "--events", events, NULL};
    pid_t spid, pids[4];
    int fd = serve_and_four(out, args, &spid, pids);
    if (fd == -2)
        return;
    static char line[1 << 20];
    int requests = 0;
    bool done = false;
    while (fd >= 0 && !done) {
        long len = read_line(fd, line, sizeof line, 20000);
        if (len < 0)
            break; /* the server closed the connection (or gave up on us) */
        if (strstr(line, "\"request\":\"INITIALIZE\""))
            CHECK_MSG(strstr(line, "\"enableRoleRequest\":true") != NULL, "%s: INITIALIZE does not say the server "
                      "asked ROLE", mode_names[m]);
        json_error_t je;
        json_t *p = json_loads(line, 0, &je);
        const char *req = json_string_value(json_object_get(p, "request"));
        int r = req ? aw_wire_request_parse(req) : -1;
        json_decref(p);
        requests++;
        if (r == AW_WIRE_REQ_NAME) {
            write_all(fd, "hostile\n", 8);
            continue;
        }
        bool wants = r >= 0 && aw_wire_request_has_reply(r);
        switch (m) {
        case SILENT:
            break;
        case GARBAGE:
            if (wants)
                write_all(fd, "\xff\xfe{not json\n", 13);
            break;
        case FLOOD:
            if (r == AW_REQ_TALK) {
                static char big[100000];
                memset(big, 'x', sizeof big);
                write_all(fd, big, sizeof big);
            } else if (wants) {
                write_all(fd, "Over\n", 5);
            }
            break;
        case TOO_MUCH: /* answers even what needs no answer */
            write_all(fd, "Over\n", 5);
            break;
        case VANISH:
            if (r == AW_REQ_TALK) {
                close(fd);
                fd = -1;
            }
            break;
        case LATE: /* every answer after the deadline */
            if (wants) {
                struct timespec ts = {0, 150000000};
                nanosleep(&ts, NULL);
                write_all(fd, r == AW_REQ_TALK || r == AW_REQ_WHISPER ? "Over\n" : "{\"agentIdx\":1}\n",
                          r == AW_REQ_TALK || r == AW_REQ_WHISPER ? 5 : 15);
            }
            break;
        }
        if (r == AW_REQ_FINISH)
            done = true;
    }
    CHECK_MSG(wait_exit(spid, 60000) == 0, "%s: the server did not finish", mode_names[m]);
    if (fd >= 0)
        close(fd);
    for (int i = 0; i < 4; i++)
        CHECK_MSG(wait_exit(pids[i], 10000) == 0, "%s: a connect client did not end cleanly", mode_names[m]);
    CHECK_MSG(check_logs(logdir, 1) == 0, "%s: the game's log is not legal", mode_names[m]);
    CHECK_MSG(requests > 1, "%s: the hostile client got %d requests", mode_names[m], requests);
    CHECK_MSG(file_has(events, "\"fault\":"), "%s: no fault in the events", mode_names[m]);
}

/* A client that learns across games by its agent number, as some past
 * contest agents do: the official server gives a connection its number
 * once, and it keeps it for every game; so must serve. */
static void keeps_number(void)
{
    char out[256];
    snprintf(out, sizeof out, "%s/keeper.out", dir);
    char *args[] = {"-n", "5", "--games", "6", "--seed", "21", "--time-limit", "2000", NULL};
    pid_t spid, pids[4];
    int fd = serve_and_four(out, args, &spid, pids);
    if (fd == -2)
        return;
    static char line[1 << 20];
    int numbers[16], games = 0;
    while (fd >= 0) {
        long len = read_line(fd, line, sizeof line, 20000);
        if (len < 0)
            break; /* the server closed the connection: the games are over */
        json_error_t je;
        json_t *p = json_loads(line, 0, &je);
        const char *req = json_string_value(json_object_get(p, "request"));
        int r = req ? aw_wire_request_parse(req) : -1;
        if (r == AW_REQ_INITIALIZE && games < 16)
            numbers[games++] = (int)json_integer_value(json_object_get(json_object_get(p, "gameInfo"), "agent"));
        json_decref(p);
        if (r == AW_WIRE_REQ_NAME)
            write_all(fd, "keeper\n", 7);
        else if (r == AW_WIRE_REQ_ROLE)
            write_all(fd, "none\n", 5);
        else if (r == AW_REQ_TALK || r == AW_REQ_WHISPER)
            write_all(fd, "Over\n", 5);
        else if (r >= 0 && aw_wire_request_has_reply(r)) {
            char t[32];
            int n = snprintf(t, sizeof t, "{\"agentIdx\":%d}\n", games ? numbers[0] % 5 + 1 : 1);
            write_all(fd, t, (size_t)n);
        }
    }
    if (fd >= 0)
        close(fd);
    CHECK_INT(wait_exit(spid, 60000), 0);
    for (int i = 0; i < 4; i++)
        CHECK_INT(wait_exit(pids[i], 10000), 0);
    CHECK_INT(games, 6);
    for (int g = 1; g < games; g++)
        CHECK_MSG(numbers[g] == numbers[0], "game %d: the connection is Agent[%02d], in game 1 it was Agent[%02d]",
                  g + 1, numbers[g], numbers[0]);
    char said[64];
    snprintf(said, sizeof said, "keeper joined as Agent[%02d]", games ? numbers[0] : 0);
    CHECK_MSG(file_has(out, said), "the server did not say '%s'", said);
}

/* Local seats: numbers drawn from the seed, kept for the run; the same
 * seed, the same numbers and logs. */
static void local_numbers(void)
{
    char seen[6] = {0};
    int kinds = 0;
    for (int seed = 1; seed <= 6; seed++) {
        char logdir[256], out[256], sd[16], cmd[1024];
        snprintf(sd, sizeof sd, "%d", seed);
        snprintf(out, sizeof out, "%s/local_numbers.out", dir);
        int first = 0;
        for (int run = 0; run < (seed == 1 ? 2 : 1); run++) {
            snprintf(logdir, sizeof logdir, "%s/local_numbers_%d_%d", dir, seed, run);
            char *args[] = {"-p", "0", "-n", "5", "--games", "3", "--seed", sd, "--quiet", "--log-dir", logdir,
                            "--agent", "1=agents/sample.lua", "--agent", "2=agents/random.lua", "--agent",
                            "3=agents/random.lua", "--agent", "4=agents/random.lua", "--agent",
                            "5=agents/random.lua", NULL};
            pid_t spid = spawn_aiwolf("serve", out, args);
            CHECK_INT(wait_exit(spid, 60000), 0);
        }
        for (int g = 0; g < 3; g++) {
            snprintf(cmd, sizeof cmd, "grep '^0,status,[0-9]*,[A-Z]*,ALIVE,sample$' %s/local_numbers_%d_0/%d.log", dir,
                     seed, seed + g);
            FILE *f = popen(cmd, "r");
            char l[128] = "";
            int a = 0;
            if (f && fgets(l, sizeof l, f))
                sscanf(l, "0,status,%d,", &a);
            if (f)
                pclose(f);
            CHECK_MSG(a >= 1 && a <= 5, "seed %d game %d: no sample in the log", seed, g);
            if (g == 0)
                first = a;
            CHECK_MSG(a == first, "seed %d: the local seat is Agent[%02d] in game %d, Agent[%02d] in game 1", seed,
                      a, g + 1, first);
        }
        if (first >= 1 && first <= 5 && !seen[first]++)
            kinds++;
        if (seed == 1) {
            snprintf(cmd, sizeof cmd, "diff -r %s/local_numbers_1_0 %s/local_numbers_1_1", dir, dir);
            CHECK_MSG(system(cmd) == 0, "serve with the same seed wrote different logs");
        }
    }
    CHECK_MSG(kinds >= 2, "local seat 1 had the same number under 6 seeds");
}

/* Local or remote makes no difference to an agent: the same agent as
 * local seats and as connect clients, the sets swapped (2 local and 3
 * remote, then 3 local and 2 remote), plays exactly the games it plays
 * all in one process (`play`, same seeds): byte-identical logs. */
static void local_or_remote(void)
{
    for (int nlocal = 2; nlocal <= 3; nlocal++) {
        char logdir[256], out[256], cmd[1200], portstr[16], cout[256];
        snprintf(logdir, sizeof logdir, "%s/mixed%d", dir, nlocal);
        snprintf(out, sizeof out, "%s/mixed%d.out", dir, nlocal);
        char *args[24] = {"-n", "5", "--games", "8", "--seed", "600", "--time-limit", "60000", "--quiet",
                          "--log-dir", logdir};
        int n = 11;
        static char specs[5][32];
        for (int k = 1; k <= nlocal; k++) {
            snprintf(specs[k], sizeof specs[k], "%d=agents/sample.lua", k);
            args[n++] = "--agent";
            args[n++] = specs[k];
        }
        args[n] = NULL;
        pid_t spid;
        int port = serve(&spid, out, args);
        CHECK(port > 0);
        if (port <= 0)
            return;
        snprintf(portstr, sizeof portstr, "%d", port);
        pid_t cp[3];
        for (int i = 0; i < 5 - nlocal; i++) {
            snprintf(cout, sizeof cout, "%s/mixed_client%d.out", dir, i);
            char *cargs[] = {"-p", portstr, "--quiet", "agents/sample.lua", NULL};
            cp[i] = spawn_aiwolf("connect", cout, cargs);
        }
        CHECK_INT(wait_exit(spid, 120000), 0);
        for (int i = 0; i < 5 - nlocal; i++)
            CHECK_INT(wait_exit(cp[i], 10000), 0);
        snprintf(cmd, sizeof cmd,
                 "%s play --seed 600 --games 8 --budget 60000 --quiet --log %s/mixed_play%d agents/sample.lua "
                 ">/dev/null 2>&1 && diff -r %s %s/mixed_play%d",
                 bin, dir, nlocal, logdir, dir, nlocal);
        CHECK_MSG(system(cmd) == 0, "%d local and %d remote seats of sample.lua did not play play's games", nlocal,
                  5 - nlocal);
    }
}

int main(void)
{
    bin = getenv("AIWOLF_BIN");
    if (!bin)
        bin = "build/aiwolf";
    signal(SIGPIPE, SIG_IGN);
    snprintf(dir, sizeof dir, "/tmp/aiwolf_test_serve.%d", (int)getpid());
    mkdir(dir, 0777);

    whole_games(5, 3, 1);
    whole_games(15, 2, 2);
    keeps_number();
    local_numbers();
    local_or_remote();
    for (int m = SILENT; m <= LATE; m++)
        hostile((enum mode)m);

    /* Ctrl-C in the middle of a game: the server exits 0, and the game's
     * log is kept, flushed where it stopped, as SEED.log.unfinished. */
    {
        char logdir3[256], out3[256];
        snprintf(logdir3, sizeof logdir3, "%s/interrupted", dir);
        snprintf(out3, sizeof out3, "%s/interrupted.out", dir);
        char *sargs[] = {"-n", "5", "--seed", "9", "--time-limit", "2000", "--no-role-requests", "--log-dir",
                         logdir3, NULL};
        pid_t ipid;
        int port = serve(&ipid, out3, sargs);
        CHECK(port > 0);
        int fd = connect_to(port);
        char line[4096];
        CHECK(fd >= 0 && read_line(fd, line, sizeof line, 10000) >= 0);
        write_all(fd, "sleeper\n", 8); /* then never answers */
        pid_t cp[4];
        clients(port, 4, "agents/random.lua", cp);
        /* In the middle of the game: once the sleeper is asked for an answer
         * (the game then waits for it 2 s, and for each of its answers to
         * come; a minute per packet only guards against a hang). */
        static char packet[1 << 20];
        bool asked = false;
        while (!asked && fd >= 0 && read_line(fd, packet, sizeof packet, 60000) >= 0)
            asked = strstr(packet, "\"request\":\"TALK\"") || strstr(packet, "\"request\":\"VOTE\"") ||
                    strstr(packet, "\"request\":\"DIVINE\"") || strstr(packet, "\"request\":\"ATTACK\"") ||
                    strstr(packet, "\"request\":\"GUARD\"") || strstr(packet, "\"request\":\"WHISPER\"");
        CHECK_MSG(asked, "the sleeper was never asked for an answer");
        kill(ipid, SIGINT);
        CHECK_INT(wait_exit(ipid, 10000), 0);
        for (int i = 0; i < 4; i++)
            CHECK_INT(wait_exit(cp[i], 10000), 0);
        close(fd);
        char cmd3[1024];
        snprintf(cmd3, sizeof cmd3, "%s check --quiet %s/9.log.unfinished 2>&1 | grep -q 'incomplete log'", bin,
                 logdir3);
        CHECK_MSG(system(cmd3) == 0, "no unfinished log of the interrupted game");
    }

    /* ROLE requests: an agent that asks to be the werewolf is dealt it. */
    {
        char logdir2[256], out2[256], name[32];
        snprintf(logdir2, sizeof logdir2, "%s/role", dir);
        snprintf(out2, sizeof out2, "%s/role.out", dir);
        char *sargs[] = {"-n", "5", "--seed", "3", "--log-dir", logdir2, NULL};
        pid_t rpid;
        int port = serve(&rpid, out2, sargs);
        CHECK(port > 0);
        char portstr[16], cout[256];
        snprintf(portstr, sizeof portstr, "%d", port);
        pid_t cp[5];
        for (int i = 0; i < 5; i++) {
            snprintf(cout, sizeof cout, "%s/role_client%d.out", dir, i);
            snprintf(name, sizeof name, "asker%d", i);
            char *cargs[] = {"-p", portstr, "--quiet", "-n", name, "-r", "WEREWOLF", "agents/random.lua", NULL};
            char *plain[] = {"-p", portstr, "--quiet", "agents/random.lua", NULL};
            cp[i] = spawn_aiwolf("connect", cout, i == 0 ? cargs : plain);
            if (i == 0) { /* first come */
                struct timespec ts = {0, 200000000};
                nanosleep(&ts, NULL);
            }
        }
        CHECK_INT(wait_exit(rpid, 60000), 0);
        for (int i = 0; i < 5; i++)
            CHECK_INT(wait_exit(cp[i], 10000), 0);
        char cmd2[1024];
        snprintf(cmd2, sizeof cmd2, "grep -q '^0,status,[0-9]*,WEREWOLF,ALIVE,asker0$' %s/3.log", logdir2);
        CHECK_MSG(system(cmd2) == 0, "the agent that asked for WEREWOLF is not the werewolf");
    }

    /* Only local seats: the same log as play with the same seed. */
    char logdir[256], out[256], cmd[1024];
    snprintf(logdir, sizeof logdir, "%s/local", dir);
    snprintf(out, sizeof out, "%s/local.out", dir);
    char *args[] = {"-p", "0", "-n", "5", "--games", "2", "--seed", "11", "--quiet", "--fixed-seats",
                    "--log-dir", logdir,
                    "--agent", "1=agents/sample.lua", "--agent", "2=agents/random.lua", "--agent",
                    "3=agents/sample.lua", "--agent", "4=agents/random.lua", "--agent", "5=agents/sample.lua", NULL};
    pid_t spid = spawn_aiwolf("serve", out, args);
    CHECK_INT(wait_exit(spid, 60000), 0);
    snprintf(cmd, sizeof cmd,
             "%s play --seed 11 --games 2 --quiet --fixed-seats --log %s/play agents/sample.lua agents/random.lua "
             ">/dev/null 2>&1 && "
             "diff -r %s %s/play",
             bin, dir, logdir, dir);
    CHECK_MSG(system(cmd) == 0, "serve with local seats and play wrote different logs");

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!getenv("AIWOLF_KEEP_TMP") && system(cmd) != 0) /* passed or failed */
        fprintf(stderr, "could not remove %s\n", dir);
    return test_done();
}
