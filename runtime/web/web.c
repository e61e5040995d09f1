/* web: routes and channels on libwebsockets, on a libuv loop (see web.h).
 * The only file that includes libwebsockets.h.
 *
 * One lws protocol serves both HTTP and WebSocket: a connection's state
 * (struct session) holds the body being sent for HTTP, or the client record
 * for WebSocket. Shared state (routes, channels, their clients' queues and
 * backlogs) is guarded by w->mu; other threads publish into the queues and
 * wake the loop with w->wake, whose callback asks lws for a write turn for
 * each client with something queued (or closes the ones that fell behind).
 * Messages are reference counted (under w->mu) so that one copy serves the
 * backlog and every queue. */
#include "web.h"

#include <errno.h>
#include <fcntl.h>
#include <libwebsockets.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#define DEF_HEADER 4096
#define DEF_MESSAGE (64 * 1024)
#define DEF_QUEUE (8u * 1024 * 1024)
#define DEF_TIMEOUT 10
#define DEF_CLIENTS 256
#define HTTP_CHUNK (16 * 1024)
#define MAX_PATH_LEN 1024
#define MAX_AUTH_LEN 4096 /* an Authorization header kept for on_hello */

typedef struct wmsg {
    size_t refs; /* under w->mu */
    size_t len;
    char data[];
} wmsg;

typedef struct client {
    uint64_t id;
    struct lws *wsi;
    aw_web_chan *chan;
    struct client *next;
    wmsg **q; /* ring of queued messages */
    size_t qhead, qlen, qcap, qbytes;
    bool kill;    /* fell behind: close now */
    bool closing; /* channel closed: close once the queue is sent */
    bool drained; /* closing, and the queue is sent: close now */
    bool closed;  /* lws was told to close it */
    aw_buf rx;    /* the message being received (loop thread only) */
} client;

struct aw_web_chan {
    aw_web *w;
    char *path;
    aw_web_chan *next;
    wmsg **backlog; /* ring */
    size_t bl_max, bl_head, bl_len;
    aw_web_access_fn access;
    void *access_ud;
    aw_web_join_fn on_join;
    void *join_ud;
    aw_web_hello_fn on_hello;
    void *hello_ud;
    aw_web_message_fn on_message;
    void *message_ud;
    client *clients;
    size_t nclients;
    size_t dropped; /* clients closed for falling behind (aw_web_chan_dropped) */
};

/* A connection we accepted (aw_web_on_conn), until lws frees its wsi:
 * the wsi's opaque user data. Loop thread only. */
typedef struct conn {
    uint64_t id;
    struct lws *wsi;
    struct conn *prev, *next;
} conn;

typedef struct route {
    char *prefix;
    aw_web_get_fn fn;
    void *ud;
    struct route *next;
} route;

struct aw_web {
    uv_loop_t *loop;
    uv_loop_t own_loop;
    bool own; /* aw_web_start_thread: loop and thread are ours */
    uv_thread_t thread;
    struct lws_context *ctx;
    struct lws_vhost *vh;
    int listen_fd;      /* ours: lws adopts what it accepts */
    int spare_fd;       /* /dev/null, given up to refuse a connection when out of descriptors */
    uv_poll_t listen_poll;
    int open_handles;   /* of wake and listen_poll, not yet closed */
    uv_async_t wake;
    uv_timer_t reaper;  /* after a stop: until lws has finished (see on_reap) */
    uv_mutex_t mu;
    route *routes;
    aw_web_chan *chans;
    uint64_t next_client;
    bool stop_req; /* thread mode: the loop thread should stop */
    bool stopped;
    const void *lws_handles[16]; /* lws's own handles on the loop (see finish_lws) */
    int n_lws_handles;
    int port;
    char host[64];
    size_t max_message, max_queue;
    unsigned char *scratch;
    size_t scratch_cap;
    aw_web_conn_hooks hooks; /* aw_web_on_conn: with accept set, every connection is a conn */
    conn *conns;
};

typedef struct session {
    /* HTTP */
    aw_buf body;
    size_t off;
    bool sending;
    /* WebSocket */
    aw_web_chan *chan; /* set when the upgrade was accepted */
    client *cl;
} session;

/* --- messages and queues (callers hold w->mu) --- */

static wmsg *msg_new(const char *data, size_t len)
{
    wmsg *m = aw_xmalloc(sizeof *m + len + 1);
    m->refs = 0;
    m->len = len;
    memcpy(m->data, data, len);
    m->data[len] = '\0';
    return m;
}

static void msg_unref(wmsg *m)
{
    if (m && --m->refs == 0)
        free(m);
}

static void queue_push(client *cl, wmsg *m)
{
    if (cl->qlen == cl->qcap) {
        size_t ncap = cl->qcap ? cl->qcap * 2 : 16;
        wmsg **nq = aw_xmalloc(ncap * sizeof *nq);
        for (size_t i = 0; i < cl->qlen; i++)
            nq[i] = cl->q[(cl->qhead + i) % cl->qcap];
        free(cl->q);
        cl->q = nq;
        cl->qcap = ncap;
        cl->qhead = 0;
    }
    cl->q[(cl->qhead + cl->qlen) % cl->qcap] = m;
    cl->qlen++;
    cl->qbytes += m->len;
    m->refs++;
}

static wmsg *queue_pop(client *cl)
{
    if (cl->qlen == 0)
        return NULL;
    wmsg *m = cl->q[cl->qhead];
    cl->qhead = (cl->qhead + 1) % cl->qcap;
    cl->qlen--;
    cl->qbytes -= m->len;
    return m; /* the caller now holds the queue's reference */
}

static void queue_drop(client *cl)
{
    wmsg *m;
    while ((m = queue_pop(cl)) != NULL)
        msg_unref(m);
}

/* Queues m for cl, or marks cl to be closed when it would hold too much. */
static void client_offer(aw_web *w, client *cl, wmsg *m)
{
    if (cl->kill || cl->closing)
        return;
    if (cl->qbytes + m->len > w->max_queue) {
        cl->kill = true;
        cl->chan->dropped++;
        queue_drop(cl);
        return;
    }
    queue_push(cl, m);
}

static void backlog_clear(aw_web_chan *c)
{
    for (size_t i = 0; i < c->bl_len; i++)
        msg_unref(c->backlog[(c->bl_head + i) % c->bl_max]);
    c->bl_head = c->bl_len = 0;
}

/* --- lws logging --- */

static void lws_emit(int level, const char *line)
{
    (void)level;
    fprintf(stderr, "aiwolf web: %s", line);
}

/* --- HTTP --- */

static route *route_find(aw_web *w, const char *path)
{
    route *best = NULL;
    size_t best_len = 0;
    for (route *r = w->routes; r; r = r->next) {
        size_t n = strlen(r->prefix);
        bool dir = n > 0 && r->prefix[n - 1] == '/' && n > 1;
        bool hit = dir ? strncmp(path, r->prefix, n) == 0 : strcmp(path, r->prefix) == 0;
        if (hit && (!best || n > best_len)) {
            best = r;
            best_len = n;
        }
    }
    return best;
}

/* The query string, fragments joined with '&' (lws splits it there). */
static void get_query(struct lws *wsi, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < 64; i++) {
        char frag[512];
        int n = lws_hdr_copy_fragment(wsi, frag, (int)sizeof frag, WSI_TOKEN_HTTP_URI_ARGS, i);
        if (n < 0)
            break;
        if ((size_t)n + 2 > cap - len)
            break;
        if (len)
            out[len++] = '&';
        memcpy(out + len, frag, (size_t)n);
        len += (size_t)n;
        out[len] = '\0';
    }
}

static int send_headers(struct lws *wsi, int status, const char *type, size_t len, const char *csp)
{
    unsigned char buf[LWS_PRE + 2048];
    unsigned char *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    static const struct {
        const char *name, *value;
    } extra[] = {
        {"x-content-type-options:", "nosniff"},
        {"referrer-policy:", "no-referrer"},
        {"cache-control:", "no-store"},
        {"x-frame-options:", "SAMEORIGIN"},
    };
    if (lws_add_http_common_headers(wsi, (unsigned)status, type, (lws_filepos_t)len, &p, end))
        return -1;
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)extra[i].name,
                                        (const unsigned char *)extra[i].value,
                                        (int)strlen(extra[i].value), &p, end))
            return -1;
    if (csp && lws_add_http_header_by_name(wsi, (const unsigned char *)"content-security-policy:",
                                           (const unsigned char *)csp, (int)strlen(csp), &p, end))
        return -1;
    return lws_finalize_write_http_header(wsi, start, &p, end) ? -1 : 0;
}

static const char *default_csp = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                                 "frame-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";
/* A page that is not ours (a contest's report.html): its inline scripts run,
 * but in an opaque origin that cannot reach the server. */
static const char *sandbox_csp = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; "
                                 "style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'";

static int http_request(aw_web *w, struct lws *wsi, session *s, const char *path)
{
    bool head = lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0;
    bool get = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0;
    aw_web_response res = {200, AW_WEB_TEXT, {0}, false};
    aw_buf_init(&res.body);
    aw_buf_free(&s->body);
    s->off = 0;
    s->sending = false;
    if (!get && !head) {
        aw_buf_adds(&res.body, "method not allowed\n");
        res.status = 405;
    } else {
        uv_mutex_lock(&w->mu);
        route *r = route_find(w, path);
        aw_web_get_fn fn = r ? r->fn : NULL;
        void *ud = r ? r->ud : NULL;
        size_t plen = r ? strlen(r->prefix) : 0;
        bool stopping = w->stop_req;
        uv_mutex_unlock(&w->mu);
        if (stopping) {
            /* A route may take a while (a large game converted on this
             * loop): once a stop is asked, requests still queued on other
             * connections would each hold it up. */
            aw_buf_adds(&res.body, "stopping\n");
            res.status = 503;
        } else if (!fn) {
            aw_buf_adds(&res.body, "not found\n");
            res.status = 404;
        } else {
            char query[2048];
            get_query(wsi, query, sizeof query);
            aw_web_request req = {path, path + (plen <= strlen(path) ? plen : strlen(path)), query};
            fn(ud, &req, &res);
            if (res.status < 100 || res.status > 599)
                res.status = 500;
            if (!res.type)
                res.type = AW_WEB_TEXT;
        }
    }
    const char *csp = res.sandbox ? sandbox_csp : default_csp;
    if (send_headers(wsi, res.status, res.type, res.body.len, csp) < 0) {
        aw_buf_free(&res.body);
        return -1;
    }
    if (head || res.body.len == 0) {
        aw_buf_free(&res.body);
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    s->body = res.body;
    s->off = 0;
    s->sending = true;
    lws_callback_on_writable(wsi);
    return 0;
}

static unsigned char *scratch(aw_web *w, size_t len)
{
    if (w->scratch_cap < LWS_PRE + len) {
        free(w->scratch);
        w->scratch_cap = LWS_PRE + len;
        w->scratch = aw_xmalloc(w->scratch_cap);
    }
    return w->scratch + LWS_PRE;
}

static int http_writeable(aw_web *w, struct lws *wsi, session *s)
{
    if (!s->sending)
        return 0;
    size_t left = s->body.len - s->off;
    size_t n = left > HTTP_CHUNK ? HTTP_CHUNK : left;
    bool last = n == left;
    unsigned char *p = scratch(w, n);
    memcpy(p, s->body.data + s->off, n);
    if (lws_write(wsi, p, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n)
        return -1;
    s->off += n;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    s->sending = false;
    aw_buf_free(&s->body);
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* --- WebSocket --- */

static aw_web_chan *chan_find(aw_web *w, const char *path)
{
    for (aw_web_chan *c = w->chans; c; c = c->next)
        if (strcmp(c->path, path) == 0)
            return c;
    return NULL;
}

static int ws_filter(aw_web *w, struct lws *wsi, session *s)
{
    char path[MAX_PATH_LEN], query[2048];
    if (lws_hdr_copy(wsi, path, (int)sizeof path, WSI_TOKEN_GET_URI) <= 0)
        return 1;
    get_query(wsi, query, sizeof query);
    uv_mutex_lock(&w->mu);
    aw_web_chan *c = chan_find(w, path);
    aw_web_access_fn access = c ? c->access : NULL;
    void *ud = c ? c->access_ud : NULL;
    uv_mutex_unlock(&w->mu);
    if (!c || w->stopped)
        return 1;
    if (access && !access(ud, query))
        return 1;
    s->chan = c;
    return 0;
}

/* Tells the channel's hello callback what the upgrade request said (its
 * headers are still there while ESTABLISHED is being handled). */
static void ws_hello(struct lws *wsi, aw_web_chan *c, uint64_t id, aw_web_hello_fn fn, void *ud)
{
    char query[2048], auth[MAX_AUTH_LEN];
    get_query(wsi, query, sizeof query);
    if (lws_hdr_copy(wsi, auth, (int)sizeof auth, WSI_TOKEN_HTTP_AUTHORIZATION) < 0)
        auth[0] = '\0'; /* longer than we keep: as if absent */
    aw_web_hello h = {query, auth};
    fn(ud, c, id, &h);
}

static void ws_established(aw_web *w, struct lws *wsi, session *s)
{
    aw_web_chan *c = s->chan;
    if (!c)
        return;
    client *cl = aw_xcalloc(1, sizeof *cl);
    cl->wsi = wsi;
    cl->chan = c;
    aw_buf_init(&cl->rx);
    uv_mutex_lock(&w->mu);
    conn *cn = lws_get_opaque_user_data(wsi);
    cl->id = cn ? cn->id : ++w->next_client;
    for (size_t i = 0; i < c->bl_len; i++)
        client_offer(w, cl, c->backlog[(c->bl_head + i) % c->bl_max]);
    cl->next = c->clients;
    c->clients = cl;
    c->nclients++;
    aw_web_join_fn fn = c->on_join;
    void *ud = c->join_ud;
    bool any = cl->qlen > 0;
    aw_web_hello_fn hello = c->on_hello;
    void *hello_ud = c->hello_ud;
    uv_mutex_unlock(&w->mu);
    s->cl = cl;
    if (any)
        lws_callback_on_writable(wsi);
    if (hello)
        ws_hello(wsi, c, cl->id, hello, hello_ud);
    if (fn)
        fn(ud, c, cl->id, true);
}

static void ws_closed(aw_web *w, session *s)
{
    client *cl = s->cl;
    if (!cl)
        return;
    s->cl = NULL;
    aw_web_chan *c = cl->chan;
    uv_mutex_lock(&w->mu);
    for (client **pp = &c->clients; *pp; pp = &(*pp)->next)
        if (*pp == cl) {
            *pp = cl->next;
            c->nclients--;
            break;
        }
    queue_drop(cl);
    aw_web_join_fn fn = c->on_join;
    void *ud = c->join_ud;
    uv_mutex_unlock(&w->mu);
    uint64_t id = cl->id;
    free(cl->q);
    aw_buf_free(&cl->rx);
    free(cl);
    if (fn && !w->stopped)
        fn(ud, c, id, false);
}

static int ws_close_with(struct lws *wsi, enum lws_close_status st, const char *why)
{
    lws_close_reason(wsi, st, (unsigned char *)(uintptr_t)why, strlen(why));
    return -1;
}

/* A client that fell behind: its socket is full, so no frame would go.
 * lws would first try for 5 s to flush what it holds of a message already
 * given to it; the socket is shut down so that the flush fails at once and
 * the client is closed in this turn of the loop, whatever the socket
 * buffers hold; no linger, so what the kernel still holds for it goes too. */
static void ws_kill(struct lws *wsi)
{
    int fd = (int)lws_get_socket_fd(wsi);
    if (fd >= 0) {
        struct linger lg = {1, 0};
        (void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        (void)shutdown(fd, SHUT_RDWR);
    }
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
}

/* Up to WS_BATCH queued messages per write turn, while the socket takes
 * them (lws_send_pipe_choked): one message per turn costs a turn of the
 * loop per message (bench/web_bench.c). */
#define WS_BATCH 64

static int ws_writeable(aw_web *w, struct lws *wsi, session *s)
{
    client *cl = s->cl;
    if (!cl)
        return 0;
    for (int sent = 0;; sent++) {
        uv_mutex_lock(&w->mu);
        if (cl->kill) {
            uv_mutex_unlock(&w->mu);
            ws_kill(wsi);
            return 0;
        }
        bool closing = cl->closing;
        wmsg *m = sent < WS_BATCH && (sent == 0 || !lws_send_pipe_choked(wsi)) ? queue_pop(cl) : NULL;
        bool more = cl->qlen > 0;
        if (!m && !more && closing) {
            /* From a write turn lws would take -1 for a failed write and
             * drop the socket without a close frame: the loop's wake-up
             * closes it. */
            cl->drained = true;
            uv_mutex_unlock(&w->mu);
            uv_async_send(&w->wake);
            return 0;
        }
        uv_mutex_unlock(&w->mu);
        if (!m) {
            if (more)
                lws_callback_on_writable(wsi);
            return 0;
        }
        unsigned char *p = scratch(w, m->len);
        memcpy(p, m->data, m->len);
        size_t len = m->len;
        uv_mutex_lock(&w->mu);
        msg_unref(m);
        uv_mutex_unlock(&w->mu);
        if (lws_write(wsi, p, len, LWS_WRITE_TEXT) < (int)len)
            return -1;
    }
}

static int ws_receive(aw_web *w, struct lws *wsi, session *s, const void *in, size_t len)
{
    client *cl = s->cl;
    if (!cl)
        return -1;
    if (lws_frame_is_binary(wsi))
        return ws_close_with(wsi, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, "text only");
    if (cl->rx.len + len > w->max_message)
        return ws_close_with(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "message too large");
    aw_buf_add(&cl->rx, in, len);
    if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi) > 0)
        return 0;
    aw_web_chan *c = cl->chan;
    uv_mutex_lock(&w->mu);
    aw_web_message_fn fn = c->on_message;
    void *ud = c->message_ud;
    uv_mutex_unlock(&w->mu);
    if (fn)
        fn(ud, c, cl->id, cl->rx.data ? cl->rx.data : "", cl->rx.len);
    aw_buf_clear(&cl->rx);
    return 0;
}

/* lws frees a connection's wsi: the connection has gone (told unless the
 * server is stopping). */
static void conn_gone(aw_web *w, struct lws *wsi)
{
    conn *cn = lws_get_opaque_user_data(wsi);
    if (!cn)
        return;
    lws_set_opaque_user_data(wsi, NULL);
    if (cn->prev)
        cn->prev->next = cn->next;
    else
        w->conns = cn->next;
    if (cn->next)
        cn->next->prev = cn->prev;
    uint64_t id = cn->id;
    free(cn);
    if (!w->stopped && w->hooks.closed)
        w->hooks.closed(w->hooks.ud, id);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    aw_web *w = ctx ? lws_context_user(ctx) : NULL;
    session *s = user;
    if (!w)
        return 0;
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        if (!s || !in)
            return -1;
        return http_request(w, wsi, s, in);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return s ? http_writeable(w, wsi, s) : -1;
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (s) {
            aw_buf_free(&s->body);
            s->sending = false;
        }
        return 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return s ? ws_filter(w, wsi, s) : 1;
    case LWS_CALLBACK_ESTABLISHED:
        if (s) {
            aw_buf_free(&s->body);
            s->sending = false;
            ws_established(w, wsi, s);
        }
        return s && s->cl ? 0 : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return s ? ws_writeable(w, wsi, s) : -1;
    case LWS_CALLBACK_RECEIVE:
        return s ? ws_receive(w, wsi, s, in, len) : -1;
    case LWS_CALLBACK_CLOSED:
        if (s)
            ws_closed(w, s);
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        conn_gone(w, wsi);
        return 0;

    default:
        return 0;
    }
}

static const struct lws_protocols protocols[] = {
    {"aiwolf", callback, sizeof(session), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static const lws_retry_bo_t retry = {
    .secs_since_valid_ping = 30,   /* an idle WebSocket gets a ping */
    .secs_since_valid_hangup = 70, /* and is closed when nothing answers */
};

/* --- the loop side --- */

static void do_stop(aw_web *w);

/* On the loop thread: a publish (or a stop) from anywhere. What to do to
 * each client is decided under the lock and done after it, as lws may call
 * back into this module (a close calls LWS_CALLBACK_CLOSED at once). */
enum { ACT_WRITE, ACT_KILL, ACT_CLOSE };
typedef struct action {
    struct lws *wsi;
    int what;
} action;

static void on_wake(uv_async_t *a)
{
    aw_web *w = a->data;
    action *acts = NULL;
    size_t n = 0, cap = 0;
    uv_mutex_lock(&w->mu);
    bool stop = w->stop_req;
    if (!w->stopped && w->ctx)
        for (aw_web_chan *c = w->chans; c; c = c->next)
            for (client *cl = c->clients; cl; cl = cl->next) {
                int what;
                if (cl->closed)
                    continue;
                if (cl->kill)
                    what = ACT_KILL;
                else if (cl->drained)
                    what = ACT_CLOSE;
                else if (cl->qlen || cl->closing)
                    what = ACT_WRITE;
                else
                    continue;
                if (what != ACT_WRITE)
                    cl->closed = true;
                if (n == cap) {
                    cap = cap ? cap * 2 : 16;
                    acts = aw_xrealloc(acts, cap * sizeof *acts);
                }
                acts[n].wsi = cl->wsi;
                acts[n++].what = what;
            }
    uv_mutex_unlock(&w->mu);
    for (size_t i = 0; i < n; i++) {
        if (acts[i].what == ACT_WRITE) {
            lws_callback_on_writable(acts[i].wsi);
        } else if (acts[i].what == ACT_KILL) {
            ws_kill(acts[i].wsi);
        } else {
            /* lws sends the close frame, waits for the answer, closes */
            lws_close_reason(acts[i].wsi, LWS_CLOSE_STATUS_NORMAL, (unsigned char *)(uintptr_t) "closed", 6);
            lws_close_free_wsi(acts[i].wsi, LWS_CLOSE_STATUS_NORMAL, "closed");
        }
    }
    free(acts);
    if (stop)
        do_stop(w);
}

static void web_free(aw_web *w)
{
    for (aw_web_chan *c = w->chans, *cn; c; c = cn) {
        cn = c->next;
        backlog_clear(c);
        free(c->backlog);
        free(c->path);
        free(c);
    }
    for (route *r = w->routes, *rn; r; r = rn) {
        rn = r->next;
        free(r->prefix);
        free(r);
    }
    for (conn *cn = w->conns, *nx; cn; cn = nx) { /* lws freed their wsi without a word */
        nx = cn->next;
        free(cn);
    }
    free(w->scratch);
    uv_mutex_destroy(&w->mu);
    free(w);
}

/* lws takes a context down in steps on a loop it does not own: the first
 * call to lws_context_destroy closes its connections, then its own handles
 * (a timer, an idle); once those have closed, a second call frees the
 * context (and sets w->ctx to NULL). lws says nothing when they have
 * closed, so its handles are noted when the context is made (the loop's
 * handles after it, less those before) and looked for on the loop. */
#define MAX_LWS_HANDLES 16
typedef struct handle_set {
    const uv_handle_t **h;
    size_t n, cap;
    const aw_web *w; /* for find: the set to look for */
    bool found;
} handle_set;

static void collect_handle(uv_handle_t *h, void *arg)
{
    handle_set *hs = arg;
    if (hs->n == hs->cap) {
        hs->cap = hs->cap ? 2 * hs->cap : 64;
        hs->h = aw_xrealloc(hs->h, hs->cap * sizeof *hs->h);
    }
    hs->h[hs->n++] = h;
}

static void find_handle(uv_handle_t *h, void *arg)
{
    handle_set *hs = arg;
    for (int i = 0; i < hs->w->n_lws_handles; i++)
        if (hs->w->lws_handles[i] == h)
            hs->found = true;
}

static void finish_lws(aw_web *w)
{
    if (!w->ctx)
        return;
    handle_set hs = {NULL, 0, 0, w, false};
    uv_walk(w->loop, find_handle, &hs);
    if (!hs.found)
        lws_context_destroy(w->ctx);
}

static void on_reaper_closed(uv_handle_t *h)
{
    aw_web *w = h->data;
    if (!w->own)
        web_free(w); /* own loop: aw_web_stop frees w once the thread has ended */
}

/* Once our handles have closed: every 10 ms, until lws has finished (its
 * handles closed, the context freed); then the reaper closes itself, and on
 * our own loop that ends the loop. The ticks also keep the loop turning
 * while lws closes, so nothing waits on a socket that will never speak. */
static void on_reap(uv_timer_t *h)
{
    aw_web *w = h->data;
    finish_lws(w);
    if (w->ctx)
        return;
    uv_timer_stop(h);
    uv_close((uv_handle_t *)h, on_reaper_closed);
}

static void on_handle_closed(uv_handle_t *h)
{
    aw_web *w = h->data;
    if (--w->open_handles > 0)
        return;
    uv_timer_init(w->loop, &w->reaper);
    w->reaper.data = w;
    uv_timer_start(&w->reaper, on_reap, 0, 10);
}

static void do_stop(aw_web *w)
{
    if (w->stopped)
        return;
    uv_mutex_lock(&w->mu);
    w->stopped = true;
    uv_mutex_unlock(&w->mu);
    uv_poll_stop(&w->listen_poll);
    uv_close((uv_handle_t *)&w->listen_poll, on_handle_closed);
    close(w->listen_fd);
    w->listen_fd = -1;
    if (w->spare_fd >= 0)
        close(w->spare_fd);
    w->spare_fd = -1;
    if (w->ctx)
        lws_context_destroy(w->ctx);
    uv_close((uv_handle_t *)&w->wake, on_handle_closed);
}

/* A new connection, with aw_web_on_conn: the hook takes it, or it gets
 * the hook's refusal as an HTTP 503 (one write, best effort: the socket
 * is new, its send buffer empty) and is closed before lws sees it. */
static void conn_adopt(aw_web *w, int fd)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    memset(&ss, 0, sizeof ss);
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0) {
        close(fd); /* gone already */
        return;
    }
    uint64_t id;
    uv_mutex_lock(&w->mu);
    id = ++w->next_client;
    uv_mutex_unlock(&w->mu);
    const char *refusal = NULL;
    if (!w->hooks.accept(w->hooks.ud, (const struct sockaddr *)&ss, id, &refusal)) {
        if (refusal) {
            char head[256];
            int hl = snprintf(head, sizeof head,
                              "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                              "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                              strlen(refusal));
            struct iovec iov[2] = {{head, (size_t)hl}, {(void *)(uintptr_t)refusal, strlen(refusal)}};
            struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
            (void)!sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
            shutdown(fd, SHUT_WR);
        }
        close(fd);
        return;
    }
    struct lws *wsi = lws_adopt_socket_vhost(w->vh, fd); /* on failure lws closes fd */
    if (!wsi) {
        if (w->hooks.closed)
            w->hooks.closed(w->hooks.ud, id);
        return;
    }
    conn *cn = aw_xcalloc(1, sizeof *cn);
    cn->id = id;
    cn->wsi = wsi;
    cn->next = w->conns;
    if (w->conns)
        w->conns->prev = cn;
    w->conns = cn;
    lws_set_opaque_user_data(wsi, cn);
}

/* New connections: accepted here, handed to lws. */
static void on_listen(uv_poll_t *h, int status, int events)
{
    aw_web *w = h->data;
    (void)events;
    if (status < 0 || w->stopped)
        return;
    if (w->spare_fd < 0) /* given up and not had back: again */
        w->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    for (int i = 0; i < 64; i++) {
        int fd = accept(w->listen_fd, NULL, NULL);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE) && w->spare_fd >= 0) {
            /* Out of descriptors: the connection would stay in the queue
             * and the socket readable, and the loop would spin on it. The
             * spare makes room to take it and close it at once. */
            close(w->spare_fd);
            fd = accept(w->listen_fd, NULL, NULL);
            if (fd >= 0)
                close(fd);
            w->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
            if (fd >= 0)
                continue;
        }
        if (fd < 0)
            return; /* EAGAIN, or out of descriptors without a spare: the next turn tries again */
        fcntl(fd, F_SETFD, FD_CLOEXEC);
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
        /* Small messages (a human seat's "taken", the next view) go out at
         * once, not after the peer acknowledged the one before (Nagle's
         * wait cost a page about 40 ms per answer). Best effort. */
        int one = 1;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (w->hooks.accept)
            conn_adopt(w, fd);
        else
            lws_adopt_socket_vhost(w->vh, fd); /* on failure lws closes fd */
    }
}

/* Our listening socket: bound here so that a bad address or a port in use
 * is an error before lws is involved. */
static int listen_socket(aw_web *w, int port, int *bound, aw_error *err)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    uv_inet_pton(AF_INET, w->host, &a.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return aw_fail(err, AW_EIO, "web: cannot make a socket: %s", strerror(errno));
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0) {
        int e = errno;
        close(fd);
        return aw_fail(err, AW_EIO, "web: cannot listen on %s:%d: %s", w->host, port, strerror(e));
    }
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    *bound = ntohs(a.sin_port);
    return fd;
}

static bool ipv4_literal(const char *s)
{
    unsigned char addr[4];
    return uv_inet_pton(AF_INET, s, addr) == 0;
}

static aw_web *web_new(const aw_web_opts *o, uv_loop_t *loop, aw_error *err)
{
    const char *host = o->host && *o->host ? o->host : "127.0.0.1";
    if (strcmp(host, "localhost") == 0)
        host = "127.0.0.1";
    if (!ipv4_literal(host) || strlen(host) >= sizeof ((aw_web *)0)->host) {
        aw_fail(err, AW_EINVAL, "'%.200s' is not an IPv4 address: the web server listens on IPv4 only: give an IPv4 "
                                "address (127.0.0.1, 0.0.0.0, ...) or localhost",
                host);
        return NULL;
    }
    if (o->port < 0 || o->port > 65535) {
        aw_fail(err, AW_EINVAL, "port %d: give 0 to 65535", o->port);
        return NULL;
    }
    aw_web *w = aw_xcalloc(1, sizeof *w);
    w->loop = loop;
    w->listen_fd = w->spare_fd = -1;
    snprintf(w->host, sizeof w->host, "%s", host);
    w->max_message = o->max_message ? o->max_message : DEF_MESSAGE;
    w->max_queue = o->max_queue ? o->max_queue : DEF_QUEUE;
    uv_mutex_init(&w->mu);
    return w;
}

/* On the loop thread (or before it runs): the socket, the context, the
 * handles. A failure leaves nothing on the loop. */
static int web_listen(aw_web *w, const aw_web_opts *o, aw_error *err)
{
    static bool log_set;
    if (!log_set) { /* lws's own messages only when asked: ours say what failed */
        lws_set_log_level(getenv("AIWOLF_WEB_DEBUG") ? LLL_ERR | LLL_WARN | LLL_NOTICE : 0, lws_emit);
        log_set = true;
    }
    int port = 0;
    w->listen_fd = listen_socket(w, o->port, &port, err);
    if (w->listen_fd < 0)
        return w->listen_fd;
    w->port = port;

    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    void *loops[1] = {w->loop};
    info.foreign_loops = loops;
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN |
                   LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_DISABLE_IPV6;
    info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
    info.protocols = protocols;
    info.user = w;
    info.pcontext = &w->ctx;
    info.max_http_header_data = (unsigned short)(o->max_header ? (o->max_header > 65535 ? 65535 : o->max_header)
                                                               : DEF_HEADER);
    unsigned max_clients = o->max_clients ? (o->max_clients > 60000 ? 60000 : o->max_clients) : DEF_CLIENTS;
    /* A header buffer for every connection we take: with fewer, clients
     * that never finish their request hold them all and every other
     * connection waits for them to time out (lws makes them as needed). */
    info.max_http_header_pool = (unsigned short)max_clients;
    info.timeout_secs = o->timeout_s ? o->timeout_s : DEF_TIMEOUT;
    info.timeout_secs_ah_idle = info.timeout_secs;
    info.keepalive_timeout = 5;
    info.fd_limit_per_thread = max_clients + 16;
    info.count_threads = 1;
    info.retry_and_idle_policy = &retry;
    info.vhost_name = "default";
    handle_set before = {NULL, 0, 0, w, false}, after = {NULL, 0, 0, w, false};
    uv_walk(w->loop, collect_handle, &before);
    w->ctx = lws_create_context(&info);
    uv_walk(w->loop, collect_handle, &after);
    for (size_t i = 0; i < after.n; i++) {
        bool old = false;
        for (size_t j = 0; j < before.n; j++)
            old = old || before.h[j] == after.h[i];
        if (!old && w->n_lws_handles < MAX_LWS_HANDLES)
            w->lws_handles[w->n_lws_handles++] = after.h[i];
    }
    free(before.h);
    free(after.h);
    w->vh = w->ctx ? lws_get_vhost_by_name(w->ctx, "default") : NULL;
    if (!w->vh) {
        close(w->listen_fd);
        /* lws makes the default vhost or fails (it does not listen) */
        return aw_fail(err, AW_EIO, "web: libwebsockets could not start (AIWOLF_WEB_DEBUG=1 shows why)");
    }
    uv_async_init(w->loop, &w->wake, on_wake); /* these fail only on a bad loop */
    w->wake.data = w;
    uv_poll_init(w->loop, &w->listen_poll, w->listen_fd);
    w->listen_poll.data = w;
    uv_poll_start(&w->listen_poll, UV_READABLE, on_listen);
    w->open_handles = 2;
    w->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    return 0;
}

aw_web *aw_web_start(const aw_web_opts *o, aw_error *err)
{
    if (!o->loop) {
        aw_fail(err, AW_EINVAL, "web: no loop given");
        return NULL;
    }
    aw_web *w = web_new(o, o->loop, err);
    if (!w)
        return NULL;
    if (web_listen(w, o, err) < 0) {
        web_free(w);
        return NULL;
    }
    return w;
}

typedef struct thread_start {
    aw_web *w;
    const aw_web_opts *o;
    aw_error *err;
    int rc;
    uv_sem_t ready;
} thread_start;

static void thread_main(void *arg)
{
    thread_start *ts = arg;
    aw_web *w = ts->w;
    ts->rc = web_listen(w, ts->o, ts->err);
    bool ok = ts->rc == 0;
    uv_sem_post(&ts->ready); /* ts is the starter's: not touched after this */
    if (ok) {
        uv_run(w->loop, UV_RUN_DEFAULT);
        finish_lws(w);
    }
}

aw_web *aw_web_start_thread(const aw_web_opts *o, aw_error *err)
{
    aw_web *w = web_new(o, NULL, err);
    if (!w)
        return NULL;
    w->own = true;
    if (uv_loop_init(&w->own_loop) != 0) {
        web_free(w);
        aw_fail(err, AW_EIO, "web: cannot make a loop");
        return NULL;
    }
    w->loop = &w->own_loop;
    thread_start ts;
    memset(&ts, 0, sizeof ts);
    ts.w = w;
    ts.o = o;
    ts.err = err;
    uv_sem_init(&ts.ready, 0);
    if (uv_thread_create(&w->thread, thread_main, &ts) != 0) {
        uv_sem_destroy(&ts.ready);
        uv_loop_close(&w->own_loop);
        web_free(w);
        aw_fail(err, AW_EIO, "web: cannot start a thread");
        return NULL;
    }
    uv_sem_wait(&ts.ready);
    uv_sem_destroy(&ts.ready);
    if (ts.rc < 0) {
        uv_thread_join(&w->thread);
        uv_loop_close(&w->own_loop);
        web_free(w);
        return NULL;
    }
    return w;
}

int aw_web_port(const aw_web *w)
{
    return w->port;
}

void aw_web_stop(aw_web *w)
{
    if (!w)
        return;
    if (!w->own) {
        do_stop(w);
        return;
    }
    uv_mutex_lock(&w->mu);
    w->stop_req = true;
    uv_mutex_unlock(&w->mu);
    uv_async_send(&w->wake);
    uv_thread_join(&w->thread);
    uv_loop_close(&w->own_loop);
    web_free(w);
}

/* --- registration --- */

void aw_web_route(aw_web *w, const char *prefix, aw_web_get_fn fn, void *ud)
{
    uv_mutex_lock(&w->mu);
    route *r = w->routes;
    while (r && strcmp(r->prefix, prefix) != 0)
        r = r->next;
    if (!r) {
        r = aw_xcalloc(1, sizeof *r);
        r->prefix = aw_xstrdup(prefix);
        r->next = w->routes;
        w->routes = r;
    }
    r->fn = fn;
    r->ud = ud;
    uv_mutex_unlock(&w->mu);
}

/* With w->mu held. */
static aw_web_chan *chan_make(aw_web *w, const char *path)
{
    aw_web_chan *c = chan_find(w, path);
    if (!c) {
        c = aw_xcalloc(1, sizeof *c);
        c->w = w;
        c->path = aw_xstrdup(path);
        c->next = w->chans;
        w->chans = c;
    }
    return c;
}

aw_web_chan *aw_web_channel(aw_web *w, const char *path)
{
    uv_mutex_lock(&w->mu);
    aw_web_chan *c = chan_make(w, path);
    uv_mutex_unlock(&w->mu);
    return c;
}

aw_web_chan *aw_web_channel_guarded(aw_web *w, const char *path, aw_web_access_fn fn, void *ud)
{
    uv_mutex_lock(&w->mu);
    aw_web_chan *c = chan_make(w, path);
    c->access = fn;
    c->access_ud = ud;
    uv_mutex_unlock(&w->mu);
    return c;
}

void aw_web_chan_backlog(aw_web_chan *c, size_t max_messages)
{
    aw_web *w = c->w;
    uv_mutex_lock(&w->mu);
    /* keep the newest that still fit */
    wmsg **nb = max_messages ? aw_xcalloc(max_messages, sizeof *nb) : NULL;
    size_t keep = c->bl_len < max_messages ? c->bl_len : max_messages;
    for (size_t i = 0; i < c->bl_len; i++) {
        wmsg *m = c->backlog[(c->bl_head + i) % c->bl_max];
        if (i + keep >= c->bl_len)
            nb[i + keep - c->bl_len] = m;
        else
            msg_unref(m);
    }
    free(c->backlog);
    c->backlog = nb;
    c->bl_max = max_messages;
    c->bl_head = 0;
    c->bl_len = keep;
    uv_mutex_unlock(&w->mu);
}

void aw_web_chan_access(aw_web_chan *c, aw_web_access_fn fn, void *ud)
{
    uv_mutex_lock(&c->w->mu);
    c->access = fn;
    c->access_ud = ud;
    uv_mutex_unlock(&c->w->mu);
}

void aw_web_on_hello(aw_web_chan *c, aw_web_hello_fn fn, void *ud)
{
    uv_mutex_lock(&c->w->mu);
    c->on_hello = fn;
    c->hello_ud = ud;
    uv_mutex_unlock(&c->w->mu);
}

void aw_web_on_join(aw_web_chan *c, aw_web_join_fn fn, void *ud)
{
    uv_mutex_lock(&c->w->mu);
    c->on_join = fn;
    c->join_ud = ud;
    uv_mutex_unlock(&c->w->mu);
}

void aw_web_on_message(aw_web_chan *c, aw_web_message_fn fn, void *ud)
{
    uv_mutex_lock(&c->w->mu);
    c->on_message = fn;
    c->message_ud = ud;
    uv_mutex_unlock(&c->w->mu);
}

void aw_web_publish(aw_web_chan *c, const char *msg, size_t len)
{
    aw_web *w = c->w;
    wmsg *m = msg_new(msg, len);
    uv_mutex_lock(&w->mu);
    if (c->bl_max) {
        if (c->bl_len == c->bl_max) {
            msg_unref(c->backlog[c->bl_head]);
            c->bl_head = (c->bl_head + 1) % c->bl_max;
            c->bl_len--;
        }
        c->backlog[(c->bl_head + c->bl_len) % c->bl_max] = m;
        c->bl_len++;
        m->refs++;
    }
    for (client *cl = c->clients; cl; cl = cl->next)
        client_offer(w, cl, m);
    bool wake = c->clients != NULL && !w->stopped;
    if (m->refs == 0)
        free(m);
    uv_mutex_unlock(&w->mu);
    if (wake)
        uv_async_send(&w->wake);
}

void aw_web_send(aw_web_chan *c, uint64_t id, const char *msg, size_t len)
{
    aw_web *w = c->w;
    wmsg *m = msg_new(msg, len);
    uv_mutex_lock(&w->mu);
    bool wake = false;
    for (client *cl = c->clients; cl; cl = cl->next)
        if (cl->id == id) {
            client_offer(w, cl, m);
            wake = !w->stopped;
        }
    if (m->refs == 0)
        free(m);
    uv_mutex_unlock(&w->mu);
    if (wake)
        uv_async_send(&w->wake);
}

size_t aw_web_chan_clients(aw_web_chan *c)
{
    uv_mutex_lock(&c->w->mu);
    size_t n = c->nclients;
    uv_mutex_unlock(&c->w->mu);
    return n;
}

size_t aw_web_chan_dropped(aw_web_chan *c)
{
    uv_mutex_lock(&c->w->mu);
    size_t n = c->dropped;
    uv_mutex_unlock(&c->w->mu);
    return n;
}

void aw_web_chan_close(aw_web_chan *c)
{
    aw_web *w = c->w;
    uv_mutex_lock(&w->mu);
    backlog_clear(c);
    for (client *cl = c->clients; cl; cl = cl->next)
        cl->closing = true;
    bool wake = c->clients != NULL && !w->stopped;
    uv_mutex_unlock(&w->mu);
    if (wake)
        uv_async_send(&w->wake);
}

void aw_web_on_conn(aw_web *w, const aw_web_conn_hooks *h)
{
    w->hooks = *h;
}

void aw_web_conn_drop(aw_web *w, uint64_t id)
{
    for (conn *cn = w->conns; cn; cn = cn->next)
        if (cn->id == id) {
            ws_kill(cn->wsi);
            return;
        }
}

void aw_web_chan_kick(aw_web_chan *c, uint64_t id)
{
    aw_web *w = c->w;
    uv_mutex_lock(&w->mu);
    bool wake = false;
    for (client *cl = c->clients; cl; cl = cl->next)
        if (cl->id == id && !cl->closing) {
            cl->closing = true;
            wake = !w->stopped;
        }
    uv_mutex_unlock(&w->mu);
    if (wake)
        uv_async_send(&w->wake);
}
