/* netclient: a seat playing on a server over TCP (see netclient.h). */
#include "netclient.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "wire.h"
#include "wireagent.h"

#define MAX_PACKET ((size_t)16 << 20) /* longest packet line taken from a server */
#define BACKOFF_FIRST_MS 250
#define BACKOFF_MAX_MS 8000

typedef struct client {
    uv_loop_t loop;
    uv_tcp_t tcp;
    uv_getaddrinfo_t resolver;
    uv_connect_t connect_req;
    uv_timer_t retry;
    uv_signal_t sigint, sigterm;
    bool tcp_open, stopping;
    const aw_netclient_opts *o;
    aw_seat *agent;
    aw_wire_agent wa;
    aw_wire_reader in;
    aw_netclient_stats st;
    uint64_t backoff_ms;
    int status;       /* 0, or negative with err */
    aw_error *err;
    char readbuf[65536];
} client;

typedef struct write_req {
    uv_write_t req;
    char data[];
} write_req;

static void say(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(client *c, const char *fmt, ...)
{
    if (!c->o->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(c->o->log, "aiwolf connect: ");
    aw_term_vfprintf(c->o->log, fmt, ap); /* what the server and the agent said, escaped */
    fputc('\n', c->o->log);
    fflush(c->o->log);
    va_end(ap);
}

static void on_closed(uv_handle_t *h)
{
    (void)h;
}

/* Ends the run: closes every handle; the loop then runs out. */
static void stop(client *c)
{
    if (c->stopping)
        return;
    c->stopping = true;
    if (c->tcp_open && !uv_is_closing((uv_handle_t *)&c->tcp))
        uv_close((uv_handle_t *)&c->tcp, on_closed);
    uv_close((uv_handle_t *)&c->retry, on_closed);
    /* Closing the last watchers gives SIGINT back its default (death by the
     * signal, status 130), so a second Ctrl-C while we shut down would change
     * the exit status --help promises. Shutting down is short and bounded:
     * from here on SIGINT is ignored, set with SIGINT blocked so that none
     * slips in between. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    uv_close((uv_handle_t *)&c->sigint, on_closed);
    uv_close((uv_handle_t *)&c->sigterm, on_closed);
    signal(SIGINT, SIG_IGN);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void fail(client *c, const char *fmt, ...)
{
    if (c->status == 0) {
        char msg[sizeof c->err->msg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        c->status = aw_fail(c->err, AW_EIO, "%s", msg);
    }
    stop(c);
}

static void start_connect(client *c);

static void on_retry(uv_timer_t *t)
{
    start_connect(t->data);
}

/* The connection is gone or never came: try again later, or end the run. */
static void lost(client *c, const char *why, bool was_connected)
{
    if (c->stopping)
        return;
    if (c->tcp_open && !uv_is_closing((uv_handle_t *)&c->tcp))
        uv_close((uv_handle_t *)&c->tcp, on_closed);
    c->tcp_open = false;
    aw_wire_reader_free(&c->in);
    aw_wire_reader_init(&c->in, MAX_PACKET);
    if (!c->o->reconnect) {
        if (was_connected)
            stop(c); /* the server ended the session */
        else
            fail(c, "cannot connect to %s:%d: %s", c->o->host, c->o->port, why);
        return;
    }
    if (was_connected)
        c->backoff_ms = BACKOFF_FIRST_MS;
    say(c, "%s:%d: %s; trying again in %.2f s", c->o->host, c->o->port, why, (double)c->backoff_ms / 1000);
    uv_timer_start(&c->retry, on_retry, c->backoff_ms, 0);
    c->backoff_ms = c->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : c->backoff_ms * 2;
}

static void on_written(uv_write_t *req, int status)
{
    (void)status; /* a failed write shows as a failed read next */
    free(req);
}

static void send_line(client *c, const char *data, size_t len)
{
    write_req *w = malloc(sizeof *w + len + 1);
    if (!w) {
        fail(c, "out of memory");
        return;
    }
    memcpy(w->data, data, len);
    w->data[len] = '\n';
    uv_buf_t b = uv_buf_init(w->data, (unsigned)len + 1);
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0) {
        free(w);
        lost(c, "the connection broke", true);
    }
}

/* One packet line from the server: the agent answers it if it wants an
 * answer. */
static void take_line(client *c, const char *line, size_t len)
{
    aw_error err;
    int request = aw_wire_agent_take(&c->wa, line, len, &err);
    if (request < 0) {
        char shown[120];
        size_t n = len < 100 ? len : 100;
        for (size_t i = 0; i < n; i++)
            shown[i] = (unsigned char)line[i] < 0x20 || line[i] == 0x7f ? '?' : line[i];
        memcpy(shown + n, len > n ? "..." : "", len > n ? 4 : 1);
        fail(c, "the server sent something that is not an AIWolf packet (%s): \"%s\"", err.msg, shown);
        return;
    }
    c->st.requests++;
    if (request == AW_REQ_FINISH)
        c->st.games++;
    aw_buf out;
    aw_buf_init(&out);
    bool reply = false;
    aw_seat_fault f;
    aw_wire_agent_answer(&c->wa, request, &out, &reply, &f);
    if (f.kind != AW_FAULT_NONE)
        say(c, "%s: %s: %s", aw_wire_request_name(request), aw_fault_kind_name(f.kind), f.msg);
    if (reply)
        send_line(c, out.data ? out.data : "", out.len);
    aw_buf_free(&out);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    client *c = h->data;
    (void)suggested;
    *buf = uv_buf_init(c->readbuf, sizeof c->readbuf);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    client *c = s->data;
    if (n < 0) {
        lost(c, n == UV_EOF ? "the server closed the connection" : uv_strerror((int)n), true);
        return;
    }
    aw_wire_reader_feed(&c->in, buf->base, (size_t)n);
    const char *line;
    size_t len;
    int rc;
    while (!c->stopping && c->tcp_open && (rc = aw_wire_reader_next(&c->in, &line, &len)) != 0) {
        if (rc < 0) {
            fail(c, "the server sent a line longer than 16 MiB");
            return;
        }
        take_line(c, line, len);
    }
}

static void on_connect(uv_connect_t *req, int status)
{
    client *c = req->data;
    if (c->stopping)
        return;
    if (status < 0) {
        lost(c, uv_strerror(status), false);
        return;
    }
    c->st.connections++;
    c->backoff_ms = BACKOFF_FIRST_MS;
    say(c, "connected to %s:%d", c->o->host, c->o->port);
    /* A new connection is a new session: the server starts with NAME. */
    aw_wire_agent_free(&c->wa);
    aw_wire_agent_init(&c->wa, c->agent, NULL);
    c->wa.begin_at_initialize = true;
    c->wa.name_override = c->o->name;
    c->wa.role = c->o->role;
    c->wa.talk = c->o->talk;
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void on_resolved(uv_getaddrinfo_t *r, int status, struct addrinfo *res)
{
    client *c = r->data;
    if (c->stopping) {
        uv_freeaddrinfo(res);
        return;
    }
    if (status < 0) {
        uv_freeaddrinfo(res);
        lost(c, uv_strerror(status), false);
        return;
    }
    uv_tcp_init(&c->loop, &c->tcp);
    c->tcp.data = c;
    c->tcp_open = true;
    uv_tcp_nodelay(&c->tcp, 1);
    c->connect_req.data = c;
    int rc = uv_tcp_connect(&c->connect_req, &c->tcp, res->ai_addr, on_connect);
    uv_freeaddrinfo(res);
    if (rc < 0)
        lost(c, uv_strerror(rc), false);
}

static void start_connect(client *c)
{
    if (c->stopping)
        return;
    char port[16];
    snprintf(port, sizeof port, "%d", c->o->port);
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    c->resolver.data = c;
    int rc = uv_getaddrinfo(&c->loop, &c->resolver, on_resolved, c->o->host, port, &hints);
    if (rc < 0)
        lost(c, uv_strerror(rc), false);
}

static void on_signal(uv_signal_t *s, int signum)
{
    client *c = s->data;
    say(c, "%s: stopping", signum == SIGINT ? "interrupted" : "terminated");
    stop(c);
}

int aw_netclient_run(aw_seat *agent, const aw_netclient_opts *o, aw_netclient_stats *stats, aw_error *err)
{
    client *c = calloc(1, sizeof *c);
    if (!c)
        return aw_fail(err, AW_ENOMEM, "out of memory");
    c->o = o;
    c->agent = agent;
    c->err = err;
    c->backoff_ms = BACKOFF_FIRST_MS;
    aw_wire_agent_init(&c->wa, agent, NULL);
    aw_wire_reader_init(&c->in, MAX_PACKET);
    if (uv_loop_init(&c->loop) != 0) {
        aw_wire_agent_free(&c->wa);
        aw_wire_reader_free(&c->in);
        free(c);
        return aw_fail(err, AW_EIO, "cannot start the event loop");
    }
    uv_timer_init(&c->loop, &c->retry);
    c->retry.data = c;
    uv_signal_init(&c->loop, &c->sigint);
    uv_signal_init(&c->loop, &c->sigterm);
    c->sigint.data = c->sigterm.data = c;
    uv_signal_start(&c->sigint, on_signal, SIGINT);
    uv_signal_start(&c->sigterm, on_signal, SIGTERM);
    /* A write to a connection the server closed fails instead of killing us. */
    signal(SIGPIPE, SIG_IGN);
    start_connect(c);
    uv_run(&c->loop, UV_RUN_DEFAULT);
    int closed = uv_loop_close(&c->loop);
    if (closed != 0 && c->status == 0)
        c->status = aw_fail(err, AW_EIO, "internal error: handles left open at the end (%s)", uv_strerror(closed));
    int status = c->status;
    if (stats)
        *stats = c->st;
    aw_wire_agent_free(&c->wa);
    aw_wire_reader_free(&c->in);
    free(c);
    return status;
}
