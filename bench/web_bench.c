/* web_bench: the browser side's costs. (1) viewdata: recorded official
 * 15-player logs turned into the pages' JSON (what `aiwolf view` does per
 * game opened). (2) aw_web_publish: messages of one game's event size
 * published from this thread to C WebSocket clients on the web's own loop
 * thread, each client read by a thread of its own until it has them all.
 *   build/bench/web_bench [ROUNDS] [CLIENTS] [MESSAGES] */
#include <dirent.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "viewdata.h"
#include "web.h"

static void bench_viewdata(int rounds)
{
    const char *dir = "tests/fixtures/official/direct/15p";
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "web_bench: run from the project root (%s)\n", dir);
        exit(2);
    }
    char *paths[512];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 512)
        if (strstr(e->d_name, ".log")) {
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            paths[n++] = aw_xstrdup(p);
        }
    closedir(d);
    aw_buf out;
    aw_buf_init(&out);
    size_t bytes = 0;
    uint64_t t0 = aw_now_ns();
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < n; i++) {
            aw_buf_clear(&out);
            aw_view_game_json(paths[i], "x", &out);
            bytes += out.len;
        }
    double s = (double)(aw_now_ns() - t0) / 1e9;
    printf("viewdata: %d logs x %d: %.0f logs/s, %.2f ms a log, %.0f KB of JSON a log\n", n, rounds,
           n * rounds / s, 1000.0 * s / (n * rounds), (double)bytes / (n * rounds) / 1024);
    aw_buf_free(&out);
    for (int i = 0; i < n; i++)
        free(paths[i]);
}

typedef struct reader {
    int fd;
    size_t want; /* payload bytes to read */
    pthread_t t;
} reader;

static void *read_all(void *arg)
{
    reader *r = arg;
    size_t got = 0;
    unsigned char h[10];
    while (got < r->want) {
        if (recv(r->fd, h, 2, MSG_WAITALL) != 2)
            break;
        size_t len = h[1] & 0x7f;
        if (len == 126) {
            if (recv(r->fd, h + 2, 2, MSG_WAITALL) != 2)
                break;
            len = (size_t)h[2] << 8 | h[3];
        }
        char buf[65536];
        if (len > sizeof buf || recv(r->fd, buf, len, MSG_WAITALL) != (ssize_t)len)
            break;
        if ((h[0] & 0x0f) == 1)
            got += len;
    }
    return NULL;
}

static int ws_open(int port, const char *path)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(0x7f000001);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        return -1;
    char req[512];
    snprintf(req, sizeof req,
             "GET %s HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
             path);
    if (send(fd, req, strlen(req), 0) < 0)
        return -1;
    char c, last[4] = {0};
    while (recv(fd, &c, 1, 0) == 1) { /* to the end of the headers */
        memmove(last, last + 1, 3);
        last[3] = c;
        if (memcmp(last, "\r\n\r\n", 4) == 0)
            return fd;
    }
    return -1;
}

static void bench_publish(int clients, int messages)
{
    aw_web_opts o;
    memset(&o, 0, sizeof o);
    o.max_queue = 256u * 1024 * 1024;
    aw_error err;
    aw_web *w = aw_web_start_thread(&o, &err);
    if (!w) {
        fprintf(stderr, "web_bench: %s\n", err.msg);
        exit(1);
    }
    aw_web_chan *c = aw_web_channel(w, "/ws");
    const char *msg = "{\"game\":0,\"day\":1,\"event\":\"talk\",\"idx\":3,\"turn\":0,\"agent\":2,\"text\":\"VOTE Agent[03]\","
                      "\"en\":\"Agent[02] will vote for Agent[03]\",\"ja\":\"Agent[02]はAgent[03]に投票する\"}";
    size_t len = strlen(msg);
    reader *r = aw_xcalloc((size_t)clients, sizeof *r);
    for (int i = 0; i < clients; i++) {
        r[i].fd = ws_open(aw_web_port(w), "/ws");
        r[i].want = len * (size_t)messages;
    }
    while (aw_web_chan_clients(c) < (size_t)clients)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    for (int i = 0; i < clients; i++)
        pthread_create(&r[i].t, NULL, read_all, &r[i]);
    uint64_t t0 = aw_now_ns();
    for (int m = 0; m < messages; m++)
        aw_web_publish(c, msg, len);
    uint64_t t1 = aw_now_ns();
    for (int i = 0; i < clients; i++)
        pthread_join(r[i].t, NULL);
    uint64_t t2 = aw_now_ns();
    printf("publish: %d messages of %zu bytes to %d clients: publisher %.2f us a message; "
           "all delivered in %.0f ms (%.0f messages/s per client)\n",
           messages, len, clients, (double)(t1 - t0) / 1e3 / messages, (double)(t2 - t0) / 1e6,
           messages / ((double)(t2 - t0) / 1e9));
    for (int i = 0; i < clients; i++)
        close(r[i].fd);
    free(r);
    aw_web_stop(w);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    int clients = argc > 2 ? atoi(argv[2]) : 10;
    int messages = argc > 3 ? atoi(argv[3]) : 100000;
    bench_viewdata(rounds);
    bench_publish(1, messages);
    bench_publish(clients, messages);
    return 0;
}
