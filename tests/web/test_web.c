/* test_web: the web library (runtime/web/web.h) from outside, over real
 * sockets: routes and 404, a prefix route's rest and query, WebSocket
 * channels (publish from another thread, backlog for a late client, one
 * client's messages to the owner), the access hook, the per-client queue
 * bound (exactly max_queue bytes kept, one more byte drops the client), a
 * client that never reads (dropped by that bound whatever the socket
 * buffers hold, and the publisher never waits), a message too large, and
 * the same server on a loop the caller owns, stopped from that loop.
 *
 * No check here depends on time: waits are for an event (a client count,
 * a frame) without a deadline; a hang is CTest's timeout.
 *
 * The client side here is a few lines of socket code that speaks just
 * enough HTTP/1.1 and RFC 6455 for the checks (a fixed handshake key,
 * masked text frames out, unmasked frames in). */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "test.h"
#include "util.h"
#include "web.h"

static int tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(0x7f000001);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
        if (k <= 0)
            return;
        c += k;
        n -= (size_t)k;
    }
}

/* One request on a fresh connection (Connection: close); the status, and
 * the body into body. */
static int http_get(int port, const char *target, aw_buf *body)
{
    int fd = tcp_connect(port);
    if (fd < 0)
        return -1;
    char req[1024];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", target);
    send_all(fd, req, strlen(req));
    aw_buf all;
    aw_buf_init(&all);
    char buf[4096];
    ssize_t n;
    while ((n = recv(fd, buf, sizeof buf, 0)) > 0) {
        aw_buf_add(&all, buf, (size_t)n);
        /* lws may keep the connection after the body: stop at its length */
        char *end = all.data ? strstr(all.data, "\r\n\r\n") : NULL;
        char *cl = all.data ? strstr(all.data, "content-length: ") : NULL;
        if (end && cl && cl < end && all.len >= (size_t)(end + 4 - all.data) + strtoul(cl + 16, NULL, 10))
            break;
    }
    close(fd);
    int status = -1;
    if (all.len > 12 && strncmp(all.data, "HTTP/1.1 ", 9) == 0)
        status = atoi(all.data + 9);
    char *end = all.data ? strstr(all.data, "\r\n\r\n") : NULL;
    if (body) {
        aw_buf_clear(body);
        if (end)
            aw_buf_adds(body, end + 4);
    }
    aw_buf_free(&all);
    return status;
}

/* A WebSocket handshake on target; the socket, or -status when refused. */
static int ws_open(int port, const char *target)
{
    int fd = tcp_connect(port);
    if (fd < 0)
        return -1;
    char req[1024];
    snprintf(req, sizeof req,
             "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
             target);
    send_all(fd, req, strlen(req));
    char buf[2048];
    size_t len = 0;
    while (len < sizeof buf - 1) { /* byte by byte: nothing past the headers */
        ssize_t n = recv(fd, buf + len, 1, 0);
        if (n <= 0)
            break;
        len++;
        buf[len] = '\0';
        if (len >= 4 && memcmp(buf + len - 4, "\r\n\r\n", 4) == 0)
            break;
    }
    buf[len] = '\0';
    int status = len > 12 ? atoi(buf + 9) : 0;
    if (status != 101) {
        close(fd);
        return status > 0 ? -status : -1;
    }
    return fd;
}

static int recv_n(int fd, unsigned char *p, size_t n)
{
    while (n) {
        ssize_t k = recv(fd, p, n, 0);
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* The next frame: its opcode (1 text, 8 close, ...) and payload; -1 on EOF. */
static int ws_read(int fd, aw_buf *out)
{
    for (;;) {
        unsigned char h[2];
        if (recv_n(fd, h, 2) < 0)
            return -1;
        uint64_t len = h[1] & 0x7f;
        if (len == 126) {
            unsigned char e[2];
            if (recv_n(fd, e, 2) < 0)
                return -1;
            len = (uint64_t)e[0] << 8 | e[1];
        } else if (len == 127) {
            unsigned char e[8];
            if (recv_n(fd, e, 8) < 0)
                return -1;
            len = 0;
            for (int i = 0; i < 8; i++)
                len = len << 8 | e[i];
        }
        aw_buf_clear(out);
        unsigned char *p = aw_xmalloc(len + 1);
        if (recv_n(fd, p, len) < 0) {
            free(p);
            return -1;
        }
        aw_buf_add(out, p, len);
        free(p);
        int op = h[0] & 0x0f;
        if (op == 9 || op == 10) /* ping/pong: not for the checks */
            continue;
        return op;
    }
}

static void ws_send(int fd, int opcode, const char *msg, uint64_t len, bool fin)
{
    unsigned char h[14];
    size_t n = 0;
    h[n++] = (unsigned char)((fin ? 0x80 : 0) | opcode);
    if (len < 126) {
        h[n++] = (unsigned char)(0x80 | len);
    } else if (len < 65536) {
        h[n++] = 0x80 | 126;
        h[n++] = (unsigned char)(len >> 8);
        h[n++] = (unsigned char)len;
    } else {
        h[n++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            h[n++] = (unsigned char)(len >> (8 * i));
    }
    const unsigned char mask[4] = {1, 2, 3, 4};
    memcpy(h + n, mask, 4);
    n += 4;
    send_all(fd, h, n);
    if (!msg)
        return;
    unsigned char *p = aw_xmalloc(len ? len : 1);
    for (uint64_t i = 0; i < len; i++)
        p[i] = (unsigned char)msg[i] ^ mask[i % 4];
    send_all(fd, p, len);
    free(p);
}

/* --- the server side of the checks --- */

static void hello(void *ud, const aw_web_request *req, aw_web_response *res)
{
    (void)ud;
    (void)req;
    res->type = AW_WEB_TEXT;
    aw_buf_adds(&res->body, "hello");
}

static void echo(void *ud, const aw_web_request *req, aw_web_response *res)
{
    (void)ud;
    res->type = AW_WEB_JSON;
    aw_buf_printf(&res->body, "%s|%s|%s", req->path, req->rest, req->query);
}

static void teapot(void *ud, const aw_web_request *req, aw_web_response *res)
{
    (void)ud;
    (void)req;
    res->status = 418;
    for (int i = 0; i < 100000; i++) /* a body of many chunks */
        aw_buf_adds(&res->body, "0123456789");
}

typedef struct seen {
    uv_mutex_t mu;
    aw_buf msgs; /* messages joined by '\n' */
    int joins, leaves;
} seen;

static void on_msg(void *ud, aw_web_chan *c, uint64_t client, const char *msg, size_t len)
{
    seen *s = ud;
    (void)c;
    CHECK(client != 0);
    CHECK_INT(strlen(msg), len);
    uv_mutex_lock(&s->mu);
    aw_buf_add(&s->msgs, msg, len);
    aw_buf_addc(&s->msgs, '\n');
    uv_mutex_unlock(&s->mu);
}

static void on_join(void *ud, aw_web_chan *c, uint64_t client, bool joined)
{
    seen *s = ud;
    (void)c;
    (void)client;
    uv_mutex_lock(&s->mu);
    if (joined)
        s->joins++;
    else
        s->leaves++;
    uv_mutex_unlock(&s->mu);
}

static bool token_ok(void *ud, const char *query)
{
    return strcmp(query, ud) == 0;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits until the channel has n clients (for ever: a hang is the test's
 * failure, caught by CTest's timeout). */
static bool wait_clients(aw_web_chan *c, size_t n)
{
    while (aw_web_chan_clients(c) != n)
        sleep_ms(10);
    return true;
}

static void test_routes(aw_web *w, int port)
{
    aw_buf body;
    aw_buf_init(&body);
    aw_web_route(w, "/", hello, NULL);
    aw_web_route(w, "/api/", echo, NULL);
    aw_web_route(w, "/tea", teapot, NULL);
    CHECK_INT(http_get(port, "/", &body), 200);
    CHECK_STR(body.data, "hello");
    CHECK_INT(http_get(port, "/nothing", &body), 404);
    CHECK_INT(http_get(port, "/index.html", &body), 404);
    CHECK_INT(http_get(port, "/api/games/3?x=1&y=a%20b", &body), 200);
    CHECK_STR(body.data, "/api/games/3|games/3|x=1&y=a b");
    CHECK_INT(http_get(port, "/api", &body), 404); /* "/api/" is a folder */
    CHECK_INT(http_get(port, "/tea", &body), 418);
    CHECK_INT(body.len, 1000000);
    /* no way out of a route through .. (lws normalises the path) */
    CHECK_INT(http_get(port, "/api/../../etc/passwd", &body), 404);
    CHECK_INT(http_get(port, "/api/x/../../etc/passwd", &body), 404);
    CHECK_INT(http_get(port, "/api/%2e%2e/%2e%2e/etc/passwd", &body), 404);
    int st = http_get(port, "/api/a/%2e%2e/b", &body);
    CHECK_INT(st, 200);
    CHECK(strstr(body.data, "..") == NULL);
    aw_buf_free(&body);
}

static void test_channels(aw_web *w, int port)
{
    seen s;
    uv_mutex_init(&s.mu);
    aw_buf_init(&s.msgs);
    s.joins = s.leaves = 0;
    aw_web_chan *c = aw_web_channel(w, "/ws/game");
    CHECK(aw_web_channel(w, "/ws/game") == c);
    aw_web_chan_backlog(c, 2);
    aw_web_on_message(c, on_msg, &s);
    aw_web_on_join(c, on_join, &s);
    aw_web_publish(c, "one", 3);
    aw_web_publish(c, "two", 3);
    aw_web_publish(c, "three", 5);
    int fd = ws_open(port, "/ws/game");
    CHECK(fd >= 0);
    aw_buf m;
    aw_buf_init(&m);
    CHECK_INT(ws_read(fd, &m), 1);
    CHECK_STR(m.data, "two");
    CHECK_INT(ws_read(fd, &m), 1);
    CHECK_STR(m.data, "three");
    aw_web_publish(c, "four", 4);
    CHECK_INT(ws_read(fd, &m), 1);
    CHECK_STR(m.data, "four");
    CHECK(wait_clients(c, 1));
    /* a second client gets the same backlog (the last two) */
    int fd2 = ws_open(port, "/ws/game");
    CHECK(fd2 >= 0);
    CHECK_INT(ws_read(fd2, &m), 1);
    CHECK_STR(m.data, "three");
    CHECK_INT(ws_read(fd2, &m), 1);
    CHECK_STR(m.data, "four");
    CHECK(wait_clients(c, 2));
    /* a message too big for one frame's header but not for the limit,
     * fragmented, and one to a single client */
    char big[3000];
    memset(big, 'x', sizeof big);
    ws_send(fd, 1, big, 1000, false);
    ws_send(fd, 0, big, 2000, true);
    ws_send(fd, 1, "hi", 2, true);
    aw_web_send(c, 1, "just you", 8); /* client ids start at 1: fd's */
    CHECK_INT(ws_read(fd, &m), 1);
    CHECK_STR(m.data, "just you");
    for (;;) {
        uv_mutex_lock(&s.mu);
        size_t n = s.msgs.len;
        uv_mutex_unlock(&s.mu);
        if (n >= 3004)
            break;
        sleep_ms(10);
    }
    uv_mutex_lock(&s.mu);
    CHECK_INT(s.msgs.len, 3004);
    CHECK(s.msgs.len == 3004 && memcmp(s.msgs.data + 3001, "hi\n", 3) == 0);
    CHECK_INT(s.joins, 2);
    uv_mutex_unlock(&s.mu);
    /* a message over the limit (64 KiB) closes that client only */
    char *huge = aw_xmalloc(70000);
    memset(huge, 'y', 70000);
    ws_send(fd2, 1, huge, 70000, true);
    free(huge);
    int op = ws_read(fd2, &m);
    CHECK_MSG(op == 8 || op == -1, "op %d", op);
    if (op == 8)
        CHECK(m.len >= 2 && ((unsigned char)m.data[0] << 8 | (unsigned char)m.data[1]) == 1009);
    close(fd2);
    CHECK(wait_clients(c, 1));
    /* binary and bad UTF-8 close the client */
    fd2 = ws_open(port, "/ws/game");
    CHECK(fd2 >= 0);
    ws_send(fd2, 2, "\x01\x02", 2, true);
    do
        op = ws_read(fd2, &m);
    while (op == 1);
    CHECK_MSG(op == 8 || op == -1, "op %d", op);
    close(fd2);
    fd2 = ws_open(port, "/ws/game");
    CHECK(fd2 >= 0);
    ws_send(fd2, 1, "\xff\xfe", 2, true);
    do
        op = ws_read(fd2, &m);
    while (op == 1);
    CHECK_MSG(op == 8 || op == -1, "op %d", op);
    close(fd2);
    /* closing the channel closes its clients after what is queued */
    aw_web_publish(c, "last", 4);
    aw_web_chan_close(c);
    CHECK_INT(ws_read(fd, &m), 1);
    CHECK_STR(m.data, "last");
    CHECK_INT(ws_read(fd, &m), 8);
    close(fd);
    CHECK(wait_clients(c, 0));
    /* a path that is no channel */
    CHECK(ws_open(port, "/ws/none") < 0);
    aw_buf_free(&m);
    uv_mutex_lock(&s.mu);
    CHECK(s.leaves >= 2);
    uv_mutex_unlock(&s.mu);
    aw_web_on_message(c, NULL, NULL);
    aw_web_on_join(c, NULL, NULL);
    aw_buf_free(&s.msgs);
    uv_mutex_destroy(&s.mu);
}

static void test_access(aw_web *w, int port)
{
    aw_web_chan *c = aw_web_channel(w, "/ws/seat");
    aw_web_chan_access(c, token_ok, "token=s3cret");
    CHECK(ws_open(port, "/ws/seat") < 0);
    CHECK(ws_open(port, "/ws/seat?token=wrong") < 0);
    CHECK(ws_open(port, "/ws/seat?token=s3cret&x=1") < 0);
    int fd = ws_open(port, "/ws/seat?token=s3cret");
    CHECK(fd >= 0);
    CHECK(wait_clients(c, 1));
    close(fd);
    CHECK(wait_clients(c, 0));
}

/* --- the queue bound --- */

#define BOUND_QUEUE (256 * 1024) /* max_queue of the server for these checks */
#define BOUND_MSG 1024

typedef struct filler {
    aw_web_chan *chan;
} filler;

/* GET /fill: publishes exactly BOUND_QUEUE bytes (BOUND_MSG each), and one
 * byte more for "?over". A route handler runs on the loop thread, so
 * nothing of it reaches a socket before it returns: each client's queue
 * then holds all of it, whatever the socket buffers. */
static void fill(void *ud, const aw_web_request *req, aw_web_response *res)
{
    filler *f = ud;
    char msg[BOUND_MSG];
    memset(msg, 'q', sizeof msg);
    for (int i = 0; i < BOUND_QUEUE / BOUND_MSG; i++)
        aw_web_publish(f->chan, msg, sizeof msg);
    if (strcmp(req->query, "over") == 0)
        aw_web_publish(f->chan, "!", 1);
    aw_buf_adds(&res->body, "filled");
}

/* The end of a client's connection (after what was sent before it). */
static int ws_read_to_end(int fd, aw_buf *m)
{
    int op, frames = 0;
    while ((op = ws_read(fd, m)) == 1)
        frames++;
    return op == -1 ? frames : -1;
}

/* A client's queue holds max_queue bytes and no more: exactly that much
 * waiting is kept and delivered; one byte more drops the client (counted
 * by aw_web_chan_dropped at once, closed by the loop), and nothing of the
 * message that overflowed reaches it. */
static void test_bound(aw_web *w, int port)
{
    filler f = {aw_web_channel(w, "/ws/bound")};
    aw_web_route(w, "/fill", fill, &f);
    int fd = ws_open(port, "/ws/bound");
    CHECK(fd >= 0);
    CHECK(wait_clients(f.chan, 1));
    aw_buf m;
    aw_buf_init(&m);
    CHECK_INT(http_get(port, "/fill", NULL), 200);
    CHECK_INT(aw_web_chan_dropped(f.chan), 0);
    int got = 0;
    while (got < BOUND_QUEUE / BOUND_MSG && ws_read(fd, &m) == 1 && m.len == BOUND_MSG)
        got++;
    CHECK_INT(got, BOUND_QUEUE / BOUND_MSG);
    CHECK_INT(aw_web_chan_clients(f.chan), 1);
    /* all read, so the queue is empty again: now one byte over */
    CHECK_INT(http_get(port, "/fill?over", NULL), 200);
    CHECK_INT(aw_web_chan_dropped(f.chan), 1);
    CHECK_INT(ws_read_to_end(fd, &m), 0);
    close(fd);
    CHECK(wait_clients(f.chan, 0));
    aw_buf_free(&m);
}

/* A client that never reads, with a small receive buffer, while another
 * thread publishes 64 KiB messages: the publisher never waits, and the
 * client is dropped by our queue bound once the socket buffers are full,
 * however large they are (the loop publishes until it is; 1 GiB is far
 * beyond any socket's buffers), then closed. */
static void test_slow(aw_web *w, int port)
{
    aw_web_chan *c = aw_web_channel(w, "/ws/flood");
    int slow = ws_open(port, "/ws/flood");
    CHECK(slow >= 0);
    int rcv = 4096;
    setsockopt(slow, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
    CHECK(wait_clients(c, 1));
    size_t len = 64 * 1024;
    char *msg = aw_xmalloc(len);
    memset(msg, 'z', len);
    size_t sent = 0;
    while (aw_web_chan_dropped(c) == 0 && sent < ((size_t)1 << 30)) {
        aw_web_publish(c, msg, len);
        sent += len;
    }
    free(msg);
    CHECK_MSG(aw_web_chan_dropped(c) == 1, "not dropped after %zu bytes", sent);
    CHECK(sent > BOUND_QUEUE);
    CHECK(wait_clients(c, 0));
    aw_buf m;
    aw_buf_init(&m);
    CHECK(ws_read_to_end(slow, &m) >= 0);
    aw_buf_free(&m);
    close(slow);
    /* the server still answers */
    CHECK_INT(http_get(port, "/", NULL), 200);
}

static void test_queue_bound(void)
{
    aw_error err;
    aw_web_opts o;
    memset(&o, 0, sizeof o);
    o.max_queue = BOUND_QUEUE;
    aw_web *w = aw_web_start_thread(&o, &err);
    CHECK_MSG(w != NULL, "%s", err.msg);
    if (!w)
        return;
    aw_web_route(w, "/", hello, NULL);
    test_bound(w, aw_web_port(w));
    test_slow(w, aw_web_port(w));
    aw_web_stop(w);
}

static void test_thread(void)
{
    aw_error err;
    aw_web_opts o;
    memset(&o, 0, sizeof o);
    aw_web *w = aw_web_start_thread(&o, &err);
    CHECK_MSG(w != NULL, "%s", err.msg);
    if (!w)
        return;
    int port = aw_web_port(w);
    CHECK(port > 0);
    test_routes(w, port);
    test_channels(w, port);
    test_access(w, port);
    /* a second server cannot take the same port */
    o.port = port;
    aw_web *w2 = aw_web_start_thread(&o, &err);
    CHECK(w2 == NULL);
    CHECK(w2 == NULL && strstr(err.msg, "cannot listen") != NULL);
    aw_web_stop(w);
    o.host = "example.org";
    CHECK(aw_web_start_thread(&o, &err) == NULL);
    CHECK(strstr(err.msg, "IPv4") != NULL);
}

/* --- a loop the test owns --- */

typedef struct foreign {
    uv_loop_t loop;
    uv_async_t stop;
    aw_web *w;
    int port;
} foreign;

static void on_stop(uv_async_t *a)
{
    foreign *f = a->data;
    aw_web_stop(f->w);
    uv_close((uv_handle_t *)a, NULL);
}

static void run_loop(void *arg)
{
    foreign *f = arg;
    uv_run(&f->loop, UV_RUN_DEFAULT);
}

static void test_foreign(void)
{
    foreign f;
    uv_loop_init(&f.loop);
    uv_async_init(&f.loop, &f.stop, on_stop);
    f.stop.data = &f;
    aw_error err;
    aw_web_opts o;
    memset(&o, 0, sizeof o);
    o.loop = &f.loop;
    o.host = "localhost";
    f.w = aw_web_start(&o, &err);
    CHECK_MSG(f.w != NULL, "%s", err.msg);
    if (!f.w)
        return;
    aw_web_route(f.w, "/", hello, NULL);
    aw_web_chan *c = aw_web_channel(f.w, "/ws");
    uv_thread_t t;
    uv_thread_create(&t, run_loop, &f);
    int port = aw_web_port(f.w);
    aw_buf body;
    aw_buf_init(&body);
    CHECK_INT(http_get(port, "/", &body), 200);
    CHECK_STR(body.data, "hello");
    int fd = ws_open(port, "/ws");
    CHECK(fd >= 0);
    CHECK(wait_clients(c, 1));
    aw_web_publish(c, "x", 1);
    CHECK_INT(ws_read(fd, &body), 1);
    CHECK_STR(body.data, "x");
    uv_async_send(&f.stop); /* the loop stops the server, then ends */
    uv_thread_join(&t);
    CHECK_INT(ws_read(fd, &body), -1);
    close(fd);
    CHECK_INT(uv_loop_close(&f.loop), 0);
    aw_buf_free(&body);
}

int main(void)
{
    test_thread();
    test_queue_bound();
    test_foreign();
    return test_done();
}
