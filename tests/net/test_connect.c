/* `aiwolf connect` against a fake server: this test listens on loopback,
 * starts the client, and plays it what the official server sent in the
 * recorded TCP games (tests/fixtures/official/tcp/<game>/agentNN.jsonl,
 * every transcript of a game one after the other over one connection). The
 * client must answer exactly the requests that want an answer — NAME with
 * the -n name, ROLE with "none", talks and whispers with one valid protocol
 * line, targets as {"agentIdx":N} — and nothing else, and end cleanly when
 * the server closes. Then: a server that sends garbage or an endless line
 * gets a clear error and exit status 1; --reconnect waits for a server that
 * is not up yet. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net_helpers.h"
#include "protocol.h"
#include "test.h"
#include "wire.h"

#define FIX "tests/fixtures/official/tcp"

static char errfile[64]; /* the client's stderr */

static int listen_on(int *port)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = htons((uint16_t)*port)};
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0 || listen(s, 4) != 0) {
        close(s);
        return -1;
    }
    socklen_t len = sizeof a;
    getsockname(s, (struct sockaddr *)&a, &len);
    *port = ntohs(a.sin_port);
    return s;
}

static int accept_within(int ls, int ms)
{
    struct pollfd p = {ls, POLLIN, 0};
    if (poll(&p, 1, ms) <= 0)
        return -1;
    int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static long replies, requests, games_fed;

/* Plays one transcript's server lines to the client on fd. */
static void feed(int fd, const char *path, int players)
{
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "%s", path);
    if (!f)
        return;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    static char reply[1 << 16];
    while ((n = getline(&buf, &cap, f)) > 0) {
        json_error_t je;
        json_t *rec = json_loadb(buf, (size_t)n, 0, &je);
        const char *dir = json_string_value(json_object_get(rec, "dir"));
        if (!dir || strcmp(dir, "s2c") != 0) {
            json_decref(rec);
            continue;
        }
        const char *line = json_string_value(json_object_get(rec, "line"));
        json_t *pkt = json_loads(line, 0, &je);
        const char *req = json_string_value(json_object_get(pkt, "request"));
        int request = req ? aw_wire_request_parse(req) : -1;
        requests++;
        size_t len0 = strlen(line);
        char *out = malloc(len0 + 1);
        memcpy(out, line, len0);
        out[len0] = '\n';
        CHECK(write_all(fd, out, len0 + 1) == 0); /* one write: no Nagle wait between the line and its end */
        free(out);
        if (request >= 0 && aw_wire_request_has_reply(request)) {
            long len = read_line(fd, reply, sizeof reply, 10000);
            CHECK_MSG(len >= 0, "%s: no reply to %s", path, req);
            if (len >= 0) {
                replies++;
                if (request == AW_WIRE_REQ_NAME) {
                    CHECK_MSG(!strcmp(reply, "tester"), "NAME: %s", reply);
                } else if (request == AW_WIRE_REQ_ROLE) {
                    CHECK_MSG(!strcmp(reply, "none"), "ROLE: %s", reply);
                } else if (request == AW_REQ_TALK || request == AW_REQ_WHISPER) {
                    aw_error err;
                    CHECK_MSG(len > 0 && aw_protocol_validate(reply, (size_t)len, AW_VALIDATE_STRICT, &err) == 0,
                              "%s: %s: '%s'", path, req, reply);
                } else {
                    int t = 0;
                    CHECK_MSG(sscanf(reply, "{\"agentIdx\":%d}", &t) == 1 && t >= 1 && t <= players, "%s: %s: '%s'",
                              path, req, reply);
                }
            }
        }
        if (request == AW_REQ_FINISH)
            games_fed++;
        json_decref(pkt);
        json_decref(rec);
    }
    free(buf);
    fclose(f);
}

static void recorded_games(void)
{
    DIR *d = opendir(FIX);
    CHECK(d != NULL);
    if (!d)
        return;
    struct dirent *e;
    int folders = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        int players = strncmp(e->d_name, "15p", 3) == 0 ? 15 : 5;
        int port = 0, ls = listen_on(&port);
        CHECK(ls >= 0);
        char portstr[16];
        snprintf(portstr, sizeof portstr, "%d", port);
        char *args[] = {"-h", "127.0.0.1", "-p", portstr, "-n", "tester", "agents/random.lua", NULL};
        pid_t pid = spawn_aiwolf("connect", errfile, args);
        int fd = accept_within(ls, 10000);
        CHECK_MSG(fd >= 0, "the client did not connect");
        if (fd >= 0) {
            /* Every agent's transcript of this game, one after the other, on
             * one connection: the agent starts afresh at each INITIALIZE. */
            for (int a = 1; a <= players; a++) {
                char path[512];
                snprintf(path, sizeof path, "%s/%s/agent%02d.jsonl", FIX, e->d_name, a);
                feed(fd, path, players);
            }
            /* Nothing more may come: the client answered only what asked. */
            struct pollfd p = {fd, POLLIN, 0};
            char extra[64];
            CHECK_MSG(poll(&p, 1, 200) == 0 || read(fd, extra, sizeof extra) <= 0, "%s: bytes nobody asked for",
                      e->d_name);
            close(fd);
        }
        close(ls);
        CHECK_INT(wait_exit(pid, 10000), 0);
        char want[64];
        snprintf(want, sizeof want, "%d games played over 1 connection", players);
        CHECK_MSG(file_has(errfile, want), "%s: the client did not report %s", e->d_name,
                  want);
        folders++;
    }
    closedir(d);
    CHECK(folders >= 9);
    printf("recorded games: %d connections, %ld packets, %ld replies, %ld games\n", folders, requests, replies,
           games_fed);
    CHECK(replies > 1000);
}

/* A server that does not speak the format: exit 1 with the reason. */
static void garbage(const char *what, const char *bytes, size_t len, const char *expect)
{
    int port = 0, ls = listen_on(&port);
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    char *args[] = {"-h", "127.0.0.1", "-p", portstr, "agents/random.lua", NULL};
    pid_t pid = spawn_aiwolf("connect", errfile, args);
    int fd = accept_within(ls, 10000);
    CHECK(fd >= 0);
    if (fd >= 0) {
        write_all(fd, bytes, len);
        CHECK_MSG(wait_exit(pid, 10000) == 1, "%s: exit status", what);
        close(fd);
    } else {
        wait_exit(pid, 100);
    }
    close(ls);
    CHECK_MSG(file_has(errfile, expect), "%s: no '%s' in the client's error", what, expect);
}

static void reconnect(void)
{
    /* A port nobody listens on yet. */
    int port = 0, ls = listen_on(&port);
    close(ls);
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    char *args[] = {"-h", "127.0.0.1", "-p", portstr, "-n", "tester", "--reconnect", "agents/random.lua", NULL};
    pid_t pid = spawn_aiwolf("connect", errfile, args);
    /* Until the client says it found nobody (a hang guard of a minute,
     * however slowly it starts), then the server comes up on that port. */
    bool waited = false;
    for (int i = 0; i < 6000 && !(waited = file_has(errfile, "trying again")); i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    CHECK_MSG(waited, "the client never said it would try again");
    ls = listen_on(&port);
    CHECK(ls >= 0);
    int fd = accept_within(ls, 15000);
    CHECK_MSG(fd >= 0, "the client did not come back");
    if (fd >= 0) {
        const char *name = "{\"gameInfo\":null,\"gameSetting\":null,\"request\":\"NAME\",\"talkHistory\":null,"
                           "\"whisperHistory\":null}\n";
        write_all(fd, name, strlen(name));
        char reply[256];
        CHECK(read_line(fd, reply, sizeof reply, 10000) >= 0 && !strcmp(reply, "tester"));
        close(fd); /* the server goes away: the client waits for it again */
        int fd2 = accept_within(ls, 15000);
        CHECK_MSG(fd2 >= 0, "the client did not reconnect after the server closed");
        if (fd2 >= 0)
            close(fd2);
    }
    kill(pid, SIGTERM);
    CHECK_INT(wait_exit(pid, 10000), 0);
    close(ls);
}

int main(void)
{
    snprintf(errfile, sizeof errfile, "/tmp/aiwolf_test_connect.%d.err", (int)getpid());
    bin = getenv("AIWOLF_BIN");
    if (!bin)
        bin = "build/aiwolf";
    signal(SIGPIPE, SIG_IGN);
    recorded_games();
    garbage("not JSON", "hello world\n", 12, "not an AIWolf packet");
    garbage("not a packet", "{\"request\":\"DANCE\"}\n", 20, "not an AIWolf packet");
    size_t big = (size_t)17 << 20;
    char *endless = malloc(big);
    memset(endless, 'x', big);
    garbage("an endless line", endless, big, "longer than 16 MiB");
    free(endless);
    reconnect();
    /* Nobody there and no --reconnect: a clear error, exit 1. */
    int port = 0, ls = listen_on(&port);
    close(ls);
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    char *args[] = {"-h", "127.0.0.1", "-p", portstr, "agents/random.lua", NULL};
    CHECK_INT(wait_exit(spawn_aiwolf("connect", errfile, args), 10000), 1);
    CHECK(file_has(errfile, "cannot connect to 127.0.0.1"));
    unlink(errfile);
    return test_done();
}
