/* netserver: AIWolf games over TCP on one libuv loop (see netserver.h).
 *
 * A remote agent is a `remote`: its connection, its framing (wireseat) and
 * a timer for the deadline of the answer it owes. In a game it is a seat
 * whose requests answer later (AW_SEAT_PENDING): the `table` running the
 * game sends a whole batch, then waits; each answer (or time-out, or loss)
 * goes to aw_game_answer, and when the batch is complete the table moves
 * on. Nothing blocks, so one slow agent never holds up another game.
 *
 * A local seat that answers later (a person on a web page) is owed the same
 * way: the seat wakes the loop when its answer comes (local_watch: a
 * uv_async_send from the thread that delivered it), and one timer wakes
 * the loop at the earliest deadline of the local seats owed, for the
 * time-outs. In between, the loop sleeps.
 *
 * Connections are accepted here (not by uv_listen), so that a flood meets
 * limits: at most max_connections open, max_per_address from one address,
 * counted for both transports by connlimit, whose policy makes room by
 * dropping the oldest connection not yet named and refuses (one line) only
 * when all are named; an accept that fails for want of descriptors or
 * memory backs off and resumes. */
#define _GNU_SOURCE /* accept4 */
#include "netserver.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "connlimit.h"
#include "nlp_auth.h"
#include "nlp_server.h"
#include "rng.h"
#include "wire.h"
#include "wireseat.h"

#define MAX_REPLY ((size_t)64 << 10) /* longest reply line accepted */
#define NAME_MAX_LINE 4096           /* longest NAME reply line (the name is cut to 64 bytes) */
#define NAME_LIMIT_MS 5000           /* default: to answer NAME, which also starts the agent */
#define LOBBY_LIMIT_MS 600000        /* default: to wait in the lobby for a game */
#define REFUSAL_QUIET_MS 10000       /* at most one log line per kind of refusal this often */
#define ACCEPT_BACKOFF_FIRST_MS 50   /* an accept that failed for want of resources: wait, */
#define ACCEPT_BACKOFF_MAX_MS 2000   /* doubling up to this */
#define RETRY_FIRST_MS 100           /* a game that could not start: try again after, */
#define RETRY_MAX_MS 5000            /* doubling up to this */
#define TP_DRAIN_MS 10000            /* at the end: NLP agents have this long to take their last messages */

typedef struct aw_netserver server;
typedef struct table table;

typedef struct remote {
    aw_seat base;
    server *srv;
    uv_tcp_t tcp;
    uv_timer_t timer;
    int handles;      /* open libuv handles; freed when both are closed */
    aw_wire_seat ws;
    aw_nlp_srv nlp;   /* instead of ws for an agent over the NLP transport (msg) */
    bool msg;         /* over the NLP transport: no tcp handle */
    bool client_left; /* the transport said it has gone */
    uint64_t client;  /* its id on the transport */
    struct remote *next_msg; /* in the server's list of NLP agents */
    char name[65];
    bool named, gone, closing;
    char gone_msg[200];
    table *table;     /* the game it plays, or NULL (lobby or naming) */
    int agent;
    int number;       /* its agent number for the session (0: none: unnamed, or gone) */
    int pending;      /* the request whose answer is owed, or -1 */
    aw_role asked;    /* the role it asked for (ROLE), or AW_ROLE_NONE */
    struct remote *next; /* in the lobby */
    int timeouts;           /* answers in a row past their deadline */
    bool pinging;           /* NLP: its answer was late, NAME sent: the next message must be its name */
    char *said;             /* NLP: the name it answered NAME with (before it is cut or numbered) */
    char *token;            /* NLP: the token its request carried, until its NAME is checked */
    aw_conn *tc;            /* its connection as counted (the NLP transport's: if it counts them) */
    char readbuf[16384];
} remote;

struct table {
    server *srv;
    aw_game *gm;
    long gno;
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    remote *remotes[AW_MAX_PLAYERS + 1];
    int owed;         /* answers the current batch still waits for */
    aw_gamelog *log;
    bool running;     /* inside table_run: answers are applied by the loop there */
    bool local_owed[AW_MAX_PLAYERS + 1];         /* local seats that answer later, owed now */
    uint64_t local_deadline[AW_MAX_PLAYERS + 1]; /* when each gives up (aw_now_ns; 0: never) */
    bool watched[AW_MAX_PLAYERS + 1];            /* local_watch set on the seat */
    aw_role deal[AW_MAX_PLAYERS + 1];
    int ask[AW_MAX_PLAYERS];  /* the numbers in the order ROLE requests are honoured */
    char game_id[27];   /* the NLP agents' info.game_id */
    int retries;        /* times it could not start for want of resources */
    uint64_t retry_at;  /* when to try again (aw_now_ns), or 0 */
};

/* What a flood makes happen per connection, logged now and then. */
enum refusal { REFUSE_FULL, REFUSE_ADDRESS, REFUSE_RESOURCES, DROP_UNNAMED, REFUSE_TOKEN, NREFUSALS };

struct aw_netserver {
    uv_loop_t loop;
    /* the NLP transport (opts.nlp), its handle, its agents */
    void *tp;
    bool tp_stopped;
    int tp_clients;           /* joined and not yet left */
    uv_timer_t tp_drain;      /* bounds the wait for them at the end */
    remote *msgs;
    uv_signal_t sigint, sigterm;
    uv_timer_t kick;        /* runs lobby_check from the loop */
    uv_async_t wake;        /* a local seat that answers later says its answer came */
    uv_timer_t local_timer; /* the earliest deadline of the local seats owed */
    const aw_netserver_opts *o;
    aw_tally *tally;
    aw_error *err;
    remote *lobby;
    int nlobby, remote_seats;
    long started, finished;
    int running;
    table *tables[64];
    aw_rng seating;
    /* Agent numbers (see numbers_init): the shuffled list, the number of
     * each local slot, which numbers are local, how many named connections
     * hold each remote number. */
    int order[AW_MAX_PLAYERS];
    int local_number[AW_MAX_PLAYERS + 1];
    bool is_local[AW_MAX_PLAYERS + 1];
    int holders[AW_MAX_PLAYERS + 1];
    uint64_t t0;
    bool stopping;
    /* connections */
    int listen_fd, spare_fd; /* spare: given up to take (and refuse) a connection when out of descriptors */
    uv_poll_t listen_poll;
    uv_timer_t accept_timer; /* ends an accept back-off */
    uv_timer_t retry_timer;  /* the earliest retry_at of the tables */
    unsigned accept_backoff_ms;
    int name_ms, lobby_ms;
    aw_connlimit conns; /* both transports' (connlimit.h): the owner of each is its remote */
    uint64_t refusal_said[NREFUSALS]; /* when each kind was last logged (aw_now_ns; 0: never) */
    long refusal_unsaid[NREFUSALS];   /* refusals since, not logged */
};

static void say(server *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(server *s, const char *fmt, ...)
{
    if (!s->o->log)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(s->o->log, "aiwolf serve: ");
    aw_term_vfprintf(s->o->log, fmt, ap); /* names and messages from the network, escaped */
    fputc('\n', s->o->log);
    fflush(s->o->log);
    va_end(ap);
}

static void table_run(table *t);
static void take_timer(uv_timer_t *tm);
static void lobby_check(server *s);
static void remote_drop(remote *r, const char *why);
static int number_take(server *s);
static void number_release(server *s, remote *r);
static void refusal_note(server *s, enum refusal why, const char *detail);

/* ---- a remote agent ---------------------------------------------------- */

static const aw_seat_ops rseat_ops;
static void msg_unique_name(remote *r);

static void remote_free(remote *r)
{
    if (r->msg)
        aw_nlp_srv_free(&r->nlp);
    else
        aw_wire_seat_free(&r->ws);
    free(r->token);
    free(r->said);
    free(r);
}

/* A remote is freed when both its handles are closed and no game holds it
 * (a game that lost it frees it at its end). */
static void remote_handle_closed(uv_handle_t *h)
{
    remote *r = h->data;
    if (h == (uv_handle_t *)&r->tcp && r->tc) { /* not dropped before */
        aw_connlimit_close(&r->srv->conns, r->tc);
        r->tc = NULL;
    }
    if (--r->handles == 0 && !r->table)
        remote_free(r);
}

/* Closes the connection; the remote is freed once its handles are closed
 * and no table holds it. */
static void remote_close(remote *r)
{
    if (r->closing)
        return;
    r->closing = true;
    if (r->msg) {
        server *s = r->srv;
        for (remote **p = &s->msgs; *p; p = &(*p)->next_msg)
            if (*p == r) {
                *p = r->next_msg;
                break;
            }
        if (r->tc) { /* counted until the transport says it has gone */
            r->tc->owner = NULL;
            r->tc->kept = true;
            r->tc = NULL;
        }
        if (!s->tp_stopped && !r->client_left)
            s->o->nlp->close(s->tp, r->client);
        uv_close((uv_handle_t *)&r->timer, remote_handle_closed);
        return;
    }
    if (r->tc)
        r->tc->kept = true; /* counted until its handle has closed */
    uv_close((uv_handle_t *)&r->tcp, remote_handle_closed);
    uv_close((uv_handle_t *)&r->timer, remote_handle_closed);
}

static void on_lobby_timeout(uv_timer_t *tm)
{
    remote *r = tm->data;
    if (r->table || r->pending >= 0 || !r->named)
        return; /* seated meanwhile: the timer is the game's now */
    char m[96];
    snprintf(m, sizeof m, "waited %g s in the lobby without a game (--lobby-timeout)", r->srv->lobby_ms / 1000.0);
    remote_drop(r, m);
}

/* r waits for a game: at the end of the lobby (first come, first served),
 * for lobby_ms at most. */
static void lobby_push(server *s, remote *r)
{
    remote **p = &s->lobby;
    while (*p)
        p = &(*p)->next;
    *p = r;
    r->next = NULL;
    s->nlobby++;
    uv_timer_start(&r->timer, on_lobby_timeout, (uint64_t)s->lobby_ms, 0);
}

static void lobby_remove(server *s, remote *r)
{
    for (remote **p = &s->lobby; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            s->nlobby--;
            r->next = NULL;
            return;
        }
}

/* The answer the game waits for from r: give it to the table. */
static void table_start_game(table *t);

static void remote_answer(remote *r, int rc, const aw_seat_reply *reply, const aw_seat_fault *f)
{
    table *t = r->table;
    int kind = r->pending;
    r->pending = -1;
    r->pinging = false;
    uv_timer_stop(&r->timer);
    if (!t || kind < 0)
        return;
    if (kind == AW_WIRE_REQ_ROLE) { /* before the game: no answer is "none" */
        if (--t->owed == 0)
            table_start_game(t);
        return;
    }
    aw_game_answer(t->gm, r->agent, rc, reply, f);
    t->owed--;
    if (t->owed == 0 && !t->running)
        table_run(t);
}

static void remote_fault(remote *r, aw_fault_kind kind, const char *msg)
{
    aw_seat_fault f = {kind, ""};
    snprintf(f.msg, sizeof f.msg, "%s", msg);
    remote_answer(r, -1, NULL, &f);
}

/* The connection is gone or unusable: out for the rest of its game. */
static void remote_drop(remote *r, const char *why)
{
    if (r->gone)
        return;
    r->gone = true;
    snprintf(r->gone_msg, sizeof r->gone_msg, "%s", why);
    server *s = r->srv;
    number_release(s, r);
    if (r->named)
        say(s, "%s (%s): %s", r->name, r->table ? "in a game" : "waiting", why);
    else
        refusal_note(s, DROP_UNNAMED, why); /* a flood's many: now and then */
    lobby_remove(s, r);
    if (r->pending >= 0)
        remote_fault(r, AW_FAULT_LOST, why);
    remote_close(r);
}

static void on_written(uv_write_t *req, int status)
{
    (void)status; /* a broken connection shows in the next read */
    free(req);
}

static int remote_send(remote *r, const aw_buf *b)
{
    if (r->msg) {
        if (r->srv->tp_stopped || r->client_left)
            return -1;
        /* one message, or several after NUL bytes (nlp_server.h) */
        const char *m = b->data ? b->data : "", *end = m + b->len;
        for (;;) {
            const char *nul = memchr(m, '\0', (size_t)(end - m));
            r->srv->o->nlp->send(r->srv->tp, r->client, m, (size_t)((nul ? nul : end) - m));
            if (!nul)
                break;
            m = nul + 1;
        }
        return 0;
    }
    uv_write_t *req = malloc(sizeof *req + b->len);
    if (!req)
        return -1;
    char *data = (char *)(req + 1);
    memcpy(data, b->data, b->len);
    uv_buf_t ub = uv_buf_init(data, (unsigned)b->len);
    if (uv_write(req, (uv_stream_t *)&r->tcp, &ub, 1, on_written) != 0) {
        free(req);
        return -1;
    }
    return 0;
}

static void on_deadline(uv_timer_t *tm)
{
    remote *r = tm->data;
    if (r->pending < 0)
        return;
    char m[160];
    const char *rname = aw_wire_request_name(r->pending);
    if (r->pending == AW_WIRE_REQ_NAME) {
        r->pending = -1;
        remote_drop(r, "no answer to NAME in time (--name-timeout)");
        return;
    }
    const aw_settings *set = r->srv->o->game.settings;
    int ping_ms = r->msg && set ? set->ping_timeout_ms : 0;
    if (r->pinging) {
        snprintf(m, sizeof m, "%s: no answer, and no answer to the NAME ping within %d ms (ping_timeout_ms)",
                 rname ? rname : "?", ping_ms);
        remote_drop(r, m);
        return;
    }
    if (ping_ms > 0) {
        /* As the official NLP server: is it still there? NAME, and the
         * next message it sends must be its name. */
        aw_buf b;
        aw_buf_init(&b);
        aw_seat_fault f;
        int rc = aw_nlp_srv_send(&r->nlp, AW_WIRE_REQ_NAME, NULL, NULL, &b, &f);
        if (rc == 0)
            rc = remote_send(r, &b);
        aw_buf_free(&b);
        if (rc < 0) {
            remote_drop(r, "the connection broke");
            return;
        }
        r->pinging = true;
        uv_timer_start(&r->timer, on_deadline, (uint64_t)ping_ms, 0);
        return;
    }
    /* its answer, if it comes, is dropped */
    if (r->msg)
        aw_nlp_srv_expire(&r->nlp);
    else
        aw_wire_seat_expire(&r->ws);
    int most = r->srv->o->max_timeouts;
    if (most > 0 && ++r->timeouts >= most) {
        /* silent: out of its game now (the same substitutes as for its
         * time-outs, without waiting for each) */
        snprintf(m, sizeof m, "%s: the %d%s answer in a row past %d ms (--max-timeouts)", rname ? rname : "?",
                 r->timeouts, r->timeouts == 1 ? "st" : r->timeouts == 2 ? "nd" : r->timeouts == 3 ? "rd" : "th",
                 r->srv->o->time_limit_ms);
        remote_drop(r, m);
        return;
    }
    snprintf(m, sizeof m, "%s: no answer within %d ms", rname ? rname : "?", r->srv->o->time_limit_ms);
    remote_fault(r, AW_FAULT_TIMEOUT, m);
}

/* With --jwt-secret, as on the official NLP server: once an agent has
 * answered NAME, the token its request carried must be signed with the
 * secret for its team (the name less its trailing digits). Else it is
 * closed (and false). */
static bool token_admits(remote *r, const char *name, size_t len)
{
    server *s = r->srv;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    aw_nlp_token_status st = aw_nlp_token_check(r->token, s->o->jwt_secret, s->o->jwt_secret_len, name,
                                                aw_nlp_team_len(name, len), (double)ts.tv_sec + ts.tv_nsec / 1e9);
    free(r->token);
    r->token = NULL;
    if (st == AW_NLP_TOKEN_OK)
        return true;
    char why[160];
    snprintf(why, sizeof why, "'%.*s' came with %s", (int)(len < 64 ? len : 64), name, aw_nlp_token_status_text(st));
    refusal_note(s, REFUSE_TOKEN, why);
    r->gone = true;
    snprintf(r->gone_msg, sizeof r->gone_msg, "%s", why);
    remote_close(r);
    return false;
}

/* A reply line is complete. */
static void remote_reply(remote *r)
{
    aw_seat_reply reply;
    aw_seat_fault f = {AW_FAULT_NONE, ""};
    int kind = r->pending;
    if (r->pinging) {
        /* the first message since the NAME ping: its name says it is
         * there (the late request goes without an answer), anything else
         * (its late answer included, as on the official server) that it
         * has failed */
        aw_nlp_srv_reply(&r->nlp, AW_WIRE_REQ_NAME, &reply, &f);
        const char *rname = aw_wire_request_name(kind);
        char m[200];
        if (reply.text && r->said && reply.len == strlen(r->said) && memcmp(reply.text, r->said, reply.len) == 0) {
            snprintf(m, sizeof m, "%s: no answer within %d ms (it answered the NAME ping)", rname ? rname : "?",
                     r->srv->o->time_limit_ms);
            remote_fault(r, AW_FAULT_TIMEOUT, m);
        } else {
            snprintf(m, sizeof m, "%s: no answer in time, and its answer to the NAME ping is not its name",
                     rname ? rname : "?");
            remote_drop(r, m);
        }
        return;
    }
    r->timeouts = 0; /* it answers */
    if (kind == AW_WIRE_REQ_NAME) {
        r->pending = -1;
        uv_timer_stop(&r->timer);
        if (r->msg)
            aw_nlp_srv_reply(&r->nlp, AW_WIRE_REQ_NAME, &reply, &f);
        else
            aw_wire_seat_reply(&r->ws, AW_WIRE_REQ_NAME, &reply, &f);
        size_t n = reply.text ? reply.len : 0;
        if (n == 0) {
            remote_drop(r, "an empty name");
            return;
        }
        if (r->msg && r->srv->o->jwt_secret && !token_admits(r, reply.text, n))
            return;
        if (r->msg) {
            free(r->said);
            r->said = aw_xstrndup(reply.text, n);
        }
        if (n > sizeof r->name - 1) {
            n = sizeof r->name - 1;
            /* cut on a character boundary: a name stays UTF-8 */
            while (n > 0 && ((unsigned char)reply.text[n] & 0xC0) == 0x80)
                n--;
        }
        memcpy(r->name, reply.text, n);
        r->name[n] = '\0';
        r->named = true;
        if (r->tc)
            r->tc->kept = true; /* never dropped to make room now */
        if (r->msg) {
            msg_unique_name(r);
        } else {
            /* Named: replies up to MAX_REPLY from now on (the framing is
             * reset before each game anyway). */
            aw_wire_seat_free(&r->ws);
            aw_wire_seat_init(&r->ws, MAX_REPLY);
        }
        r->number = number_take(r->srv);
        lobby_push(r->srv, r);
        say(r->srv, "%s joined as Agent[%02d] (%d waiting)", r->name, r->number, r->srv->nlobby);
        lobby_check(r->srv);
        return;
    }
    if (kind == AW_WIRE_REQ_ROLE) {
        aw_role role = AW_ROLE_NONE;
        aw_wire_seat_reply(&r->ws, AW_WIRE_REQ_ROLE, &reply, &f);
        if (reply.text && aw_wire_reply_role(reply.text, reply.len, &role, NULL) == 0)
            r->asked = role;
        remote_answer(r, 0, NULL, &f);
        return;
    }
    if ((r->msg ? aw_nlp_srv_reply(&r->nlp, kind, &reply, &f) : aw_wire_seat_reply(&r->ws, kind, &reply, &f)) < 0) {
        remote_answer(r, -1, NULL, &f); /* not a target: no answer, the agent plays on */
        return;
    }
    remote_answer(r, 0, &reply, &f);
}

/* What the framing made of what came (wireseat's or nlp_server's feed):
 * rc 1 an answer, 0 nothing yet, -1 a fault that ends the connection. */
static void remote_fed(remote *r, int rc, const aw_seat_fault *f)
{
    if (rc < 0) {
        char m[sizeof f->msg];
        snprintf(m, sizeof m, "%s", f->msg);
        remote_drop(r, m);
        return;
    }
    if (rc == 1)
        remote_reply(r);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    remote *r = h->data;
    (void)suggested;
    *buf = uv_buf_init(r->readbuf, sizeof r->readbuf);
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
    remote *r = st->data;
    if (n < 0) {
        remote_drop(r, n == UV_EOF ? "the connection was closed" : uv_strerror((int)n));
        return;
    }
    aw_seat_fault f = {AW_FAULT_NONE, ""};
    remote_fed(r, aw_wire_seat_feed(&r->ws, buf->base, (size_t)n, &f), &f);
}

/* ---- agents over the NLP transport (opts.nlp) ---------------------------- */

/* A name another NLP agent holds gets the first number that makes it
 * unique (kanolab, kanolab2, kanolab3, ...), within the 64 bytes. */
static void msg_unique_name(remote *r)
{
    char base[65];
    snprintf(base, sizeof base, "%s", r->name);
    for (int k = 2;; k++) {
        bool taken = false;
        for (remote *o = r->srv->msgs; o && !taken; o = o->next_msg)
            taken = o != r && o->named && !o->gone && strcmp(o->name, r->name) == 0;
        if (!taken)
            return;
        char num[16];
        int nl = snprintf(num, sizeof num, "%d", k);
        size_t bl = strlen(base);
        if (bl + (size_t)nl > sizeof r->name - 1)
            bl = sizeof r->name - 1 - (size_t)nl;
        /* cut on a character boundary */
        while (bl > 0 && ((unsigned char)base[bl] & 0xC0) == 0x80)
            bl--;
        snprintf(r->name, sizeof r->name, "%.*s%s", (int)bl, base, num);
    }
}

static remote *msg_find(server *s, uint64_t client)
{
    for (remote *r = s->msgs; r; r = r->next_msg)
        if (r->client == client)
            return r;
    return NULL;
}

void aw_netserver_joined(aw_netserver *s, uint64_t client)
{
    aw_netserver_joined_with(s, client, NULL, NULL);
}

void aw_netserver_joined_with(aw_netserver *s, uint64_t client, const char *query, const char *authorization)
{
    s->tp_clients++;
    if (s->stopping || s->tp_stopped) {
        s->o->nlp->close(s->tp, client);
        return;
    }
    remote *r = calloc(1, sizeof *r);
    if (!r) {
        s->o->nlp->close(s->tp, client);
        refusal_note(s, REFUSE_RESOURCES, "out of memory");
        return;
    }
    r->base.ops = &rseat_ops;
    r->srv = s;
    r->pending = -1;
    r->msg = true;
    r->client = client;
    if ((r->tc = aw_connlimit_find(&s->conns, client)))
        r->tc->owner = r;
    if (s->o->jwt_secret)
        r->token = aw_nlp_token_of(query, authorization);
    aw_nlp_srv_init(&r->nlp);
    uv_timer_init(&s->loop, &r->timer);
    r->timer.data = r;
    r->handles = 1;
    r->next_msg = s->msgs;
    s->msgs = r;
    aw_buf b;
    aw_buf_init(&b);
    aw_seat_fault f;
    aw_nlp_srv_send(&r->nlp, AW_WIRE_REQ_NAME, NULL, NULL, &b, &f);
    remote_send(r, &b);
    aw_buf_free(&b);
    r->pending = AW_WIRE_REQ_NAME;
    uv_timer_start(&r->timer, on_deadline, (uint64_t)s->name_ms, 0);
}

void aw_netserver_message(aw_netserver *s, uint64_t client, const char *msg, size_t len)
{
    remote *r = msg_find(s, client);
    if (!r || r->gone)
        return;
    aw_seat_fault f = {AW_FAULT_NONE, ""};
    remote_fed(r, aw_nlp_srv_feed(&r->nlp, msg, len, &f), &f);
}

static void tp_stop(server *s);

void aw_netserver_left(aw_netserver *s, uint64_t client)
{
    if (--s->tp_clients == 0 && s->stopping)
        tp_stop(s); /* the last one has gone: the transport may end */
    remote *r = msg_find(s, client);
    if (!r)
        return;
    r->client_left = true;
    remote_drop(r, "the connection was closed");
}

/* ---- the seat interface for a remote agent in a game ------------------- */

static const char *rseat_begin(aw_seat *base, int agent, uint64_t agent_seed, aw_seat_fault *f)
{
    remote *r = (remote *)base;
    (void)f;
    r->agent = agent;
    if (r->msg) {
        aw_nlp_srv_reset(&r->nlp, r->table ? r->table->game_id : "");
        r->pinging = false;
        r->nlp.profiles = r->srv->o->nlp_profiles;
        return r->name;
    }
    aw_wire_seat_reset(&r->ws, agent_seed);
    r->ws.cur.role_request = r->srv->o->role_requests; /* INITIALIZE says the server asked ROLE */
    return r->name;
}

static int rseat_request(aw_seat *base, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                         aw_seat_reply *reply, aw_seat_fault *f)
{
    remote *r = (remote *)base;
    if (r->gone) {
        f->kind = AW_FAULT_LOST;
        snprintf(f->msg, sizeof f->msg, "out of this game: %s", r->gone_msg);
        return -1;
    }
    aw_buf b;
    aw_buf_init(&b);
    if ((r->msg ? aw_nlp_srv_send(&r->nlp, (int)kind, info, set, &b, f)
                : aw_wire_seat_send(&r->ws, (int)kind, info, set, &b, f)) < 0) {
        aw_buf_free(&b);
        if (f->kind == AW_FAULT_REPLY) {
            char m[sizeof f->msg];
            snprintf(m, sizeof m, "%s", f->msg);
            remote_drop(r, m);
        }
        return -1;
    }
    int sent = remote_send(r, &b);
    aw_buf_free(&b);
    if (sent < 0) {
        remote_drop(r, "the connection broke");
        f->kind = AW_FAULT_LOST;
        snprintf(f->msg, sizeof f->msg, "the connection broke");
        return -1;
    }
    if (!aw_req_needs_reply(kind))
        return 0; /* told: nothing comes back */
    if (r->msg && aw_nlp_srv_ready(&r->nlp)) {
        /* a group chat's talk, sent before its turn: the answer now */
        r->timeouts = 0;
        return aw_nlp_srv_reply(&r->nlp, (int)kind, reply, f) < 0 ? -1 : 0;
    }
    r->pending = (int)kind;
    uv_timer_start(&r->timer, on_deadline, (uint64_t)r->srv->o->time_limit_ms, 0);
    return AW_SEAT_PENDING;
}

static void rseat_free(aw_seat *base)
{
    (void)base; /* remotes are the server's */
}

static const aw_seat_ops rseat_ops = {.begin = rseat_begin, .request = rseat_request, .free = rseat_free};

/* ---- agent numbers ------------------------------------------------------- */

/* As the official TcpipServer (0.6.3): the numbers 1..players are shuffled
 * once, and each connection takes the first of that list that no
 * connection holds, when it connects, and keeps it for every game of the
 * session (only the roles are dealt anew). Here local seats take theirs
 * first, in slot order (or their own slot's number under fixed_seats), as
 * if they had connected first; a connection takes its number once it has
 * given its name. With several games at once more connections than
 * numbers play: each takes, of the remote numbers held by the fewest
 * connections, the first in the list. The list comes from the run's seed
 * (s->seating), so the local seats' numbers are the seed's; which
 * connection gets which remote number depends on who comes first. */
static void numbers_init(server *s)
{
    const aw_netserver_opts *o = s->o;
    int n = o->game.settings->players;
    for (int i = 0; i < n; i++)
        s->order[i] = i + 1;
    aw_rng_shuffle(&s->seating, s->order, n);
    int next = 0;
    for (int k = 1; k <= n; k++) {
        if (!o->local[k])
            continue;
        int a = k;
        if (!o->fixed_seats) {
            while (s->is_local[s->order[next]])
                next++;
            a = s->order[next++];
        }
        s->local_number[k] = a;
        s->is_local[a] = true;
        say(s, "local seat %d is Agent[%02d] for every game", k, a);
    }
}

static int number_take(server *s)
{
    int n = s->o->game.settings->players, best = 0;
    for (int i = 0; i < n; i++) {
        int a = s->order[i];
        if (!s->is_local[a] && (!best || s->holders[a] < s->holders[best]))
            best = a;
    }
    if (best)
        s->holders[best]++;
    return best;
}

static void number_release(server *s, remote *r)
{
    if (r->number)
        s->holders[r->number]--;
    r->number = 0;
}

/* Whether every remote number has a connection waiting that holds it. */
static bool lobby_can_seat(server *s)
{
    int waiting[AW_MAX_PLAYERS + 1] = {0};
    for (remote *r = s->lobby; r; r = r->next)
        waiting[r->number]++;
    for (int a = 1; a <= s->o->game.settings->players; a++)
        if (!s->is_local[a] && !waiting[a])
            return false;
    return true;
}

/* Takes from the lobby the connection holding number a that has waited
 * longest (the lobby is in order of arrival: lobby_push), or NULL. */
static remote *lobby_take_number(server *s, int a)
{
    remote *found = NULL;
    for (remote *r = s->lobby; r && !found; r = r->next)
        if (r->number == a)
            found = r;
    if (found)
        lobby_remove(s, found);
    return found;
}

/* ---- tables (games) ------------------------------------------------------ */

static void table_end(table *t, bool finished)
{
    server *s = t->srv;
    aw_game_result res;
    if (t->gm)
        aw_game_end(t->gm, finished ? &res : NULL);
    else
        finished = false;
    if (t->log && s->o->after && s->o->after(s->o->ud, t->gno, t->log, finished) < 0)
        s->tally->output_errors++;
    const aw_settings *set = s->o->game.settings;
    if (finished) {
        int entry_of[AW_MAX_PLAYERS + 1];
        for (int a = 1; a <= set->players; a++)
            entry_of[a] = s->is_local[a] ? 1 : 0;
        aw_tally_add(s->tally, &res, set->players, entry_of, NULL);
        s->tally->secs = (double)(aw_now_ns() - s->t0) / 1e9;
        s->finished++;
        if (res.abandoned)
            say(s, "game %ld ended on day %d with no winner: abandoned, %d of %d agents failed (error_ratio) (%ld of "
                   "%ld done)",
                t->gno + 1, res.days, res.failed, set->players, s->finished, s->o->games);
        else
            say(s, "game %ld ended: %s won on day %d (%ld of %ld done)", t->gno + 1, aw_team_name(res.winner),
                res.days, s->finished, s->o->games);
    }
    for (int a = 1; a <= set->players; a++) {
        remote *r = t->remotes[a];
        if (r) {
            r->table = NULL;
            r->pending = -1;
            if (r->closing && r->handles == 0) {
                remote_free(r);
            } else if (r->msg && !r->gone) {
                /* As the official NLP server: an agent is closed after its
                 * game (once its FINISH is sent) and connects again for the
                 * next. */
                r->gone = true;
                number_release(s, r);
                remote_close(r);
            } else if (!r->gone && r->srv->started < s->o->games) {
                lobby_push(s, r);
            }
        } else if (t->seats[a]) {
            if (t->watched[a]) /* no ready() call comes after this */
                s->o->local_watch(s->o->ud, t->seats[a], NULL, NULL);
            t->seats[a]->ops->free(t->seats[a]);
        }
    }
    for (int i = 0; i < 64; i++)
        if (s->tables[i] == t)
            s->tables[i] = NULL;
    s->running--;
    free(t);
}

static void stop(server *s);

static void on_kick(uv_timer_t *tm)
{
    server *s = tm->data;
    if (s->finished >= s->o->games && s->running == 0)
        stop(s);
    else
        lobby_check(s);
}

/* ---- local seats that answer later ----------------------------------- */

/* From any thread (the seat's, e.g. the web's): wakes the loop. */
static void local_ready(void *ud)
{
    server *s = ud;
    uv_async_send(&s->wake);
}

/* Sets the timer to the earliest deadline of the local seats owed. */
static void local_arm(server *s)
{
    uint64_t first = 0;
    for (int i = 0; i < 64; i++) {
        table *t = s->tables[i];
        for (int a = 1; t && a <= AW_MAX_PLAYERS; a++)
            if (t->local_owed[a] && t->local_deadline[a] && (!first || t->local_deadline[a] < first))
                first = t->local_deadline[a];
    }
    if (!first) {
        uv_timer_stop(&s->local_timer);
        return;
    }
    uint64_t now = aw_now_ns();
    /* in whole ms, rounded up (libuv's clock counts whole ms): a timer
     * that fires before the deadline finds the seat waiting still and is
     * set again */
    uint64_t ms = first > now ? (first - now) / 1000000 + 1 : 0;
    uv_update_time(&s->loop);
    uv_timer_start(&s->local_timer, take_timer, ms, 0);
}

/* Takes seat a's answer if it is there: 1 when taken (given to the game),
 * 0 while it is owed still (its deadline noted). */
static int local_take_one(table *t, int a)
{
    server *s = t->srv;
    aw_seat_reply reply = {NULL, 0, AW_NO_AGENT};
    aw_seat_fault f = {AW_FAULT_NONE, ""};
    uint64_t deadline = 0;
    int rc = s->o->local_take(s->o->ud, t->seats[a], &reply, &f, &deadline);
    if (rc == AW_SEAT_PENDING) {
        t->local_owed[a] = true;
        t->local_deadline[a] = deadline;
        return 0;
    }
    t->local_owed[a] = false;
    aw_game_answer(t->gm, a, rc, &reply, &f);
    t->owed--;
    return 1;
}

/* A local seat answers later: taken when it wakes the loop, or at its
 * deadline. */
static void local_pending(table *t, int a)
{
    server *s = t->srv;
    if (!s->o->local_take) {
        aw_seat_fault f = {AW_FAULT_LOST, "a local seat answered later, but this server cannot wait for it"};
        aw_game_answer(t->gm, a, -1, NULL, &f);
        t->owed--;
        return;
    }
    if (!t->watched[a] && s->o->local_watch) {
        s->o->local_watch(s->o->ud, t->seats[a], local_ready, s);
        t->watched[a] = true;
    }
    /* once now: the answer may have come before the watch was set */
    if (local_take_one(t, a) == 0)
        local_arm(s);
}

/* Takes every answer of a local seat that is there (and the time-outs). */
static void take_locals(server *s)
{
    for (int i = 0; i < 64; i++) {
        table *t = s->tables[i];
        if (!t || !t->gm)
            continue;
        for (int a = 1; a <= AW_MAX_PLAYERS; a++) {
            if (!t->local_owed[a] || !local_take_one(t, a))
                continue;
            if (t->owed == 0 && !t->running) {
                table_run(t); /* may end the table: look at it no more */
                break;
            }
        }
    }
    local_arm(s);
}

static void on_wake(uv_async_t *as)
{
    take_locals(as->data);
}

static void take_timer(uv_timer_t *tm)
{
    take_locals(tm->data);
}

/* Moves the game on as far as the answers at hand allow. */
static void table_run(table *t)
{
    server *s = t->srv;
    t->running = true;
    for (;;) {
        if (t->owed > 0) {
            t->running = false;
            return;
        }
        aw_request req;
        int rc = aw_game_next(t->gm, &req);
        if (rc != 0) {
            t->running = false;
            table_end(t, rc == 1);
            /* The next game starts from the loop, not from here: games of
             * local agents only would otherwise nest one call deeper each. */
            uv_timer_start(&s->kick, on_kick, 0, 0);
            return;
        }
        t->owed = 0;
        for (int i = 0; i < req.nseats; i++) {
            int a = req.seats[i];
            if (aw_game_ask(t->gm, a) != AW_SEAT_PENDING)
                continue;
            t->owed++;
            if (!t->remotes[a])
                local_pending(t, a);
        }
    }
}

/* ---- games that cannot start for now ------------------------------------ */

static void on_retry(uv_timer_t *tm);

/* Sets the retry timer to the earliest retry_at of the tables. */
static void retry_arm(server *s)
{
    uint64_t first = 0;
    for (int i = 0; i < 64; i++)
        if (s->tables[i] && s->tables[i]->retry_at && (!first || s->tables[i]->retry_at < first))
            first = s->tables[i]->retry_at;
    if (!first) {
        uv_timer_stop(&s->retry_timer);
        return;
    }
    uint64_t now = aw_now_ns();
    uv_update_time(&s->loop);
    uv_timer_start(&s->retry_timer, on_retry, first > now ? (first - now) / 1000000 + 1 : 0, 0);
}

/* Game t lacks resources for now (a descriptor for a local seat or its log,
 * memory): its agents stay seated, what was made for it is let go, and it
 * is tried again later, waiting longer each time. The run goes on. */
static void table_retry(table *t, const char *why)
{
    server *s = t->srv;
    const aw_netserver_opts *o = s->o;
    for (int a = 1; a <= o->game.settings->players; a++)
        if (s->is_local[a] && t->seats[a]) {
            t->seats[a]->ops->free(t->seats[a]);
            t->seats[a] = NULL;
        }
    unsigned ms = RETRY_FIRST_MS << (t->retries < 6 ? t->retries : 6);
    if (ms > RETRY_MAX_MS)
        ms = RETRY_MAX_MS;
    t->retries++;
    t->retry_at = aw_now_ns() + (uint64_t)ms * 1000000;
    say(s, "game %ld cannot start now: %s; trying again in %.1f s", t->gno + 1, why, ms / 1000.0);
    retry_arm(s);
}

static void table_start_game(table *t);

static void on_retry(uv_timer_t *tm)
{
    server *s = tm->data;
    uint64_t now = aw_now_ns();
    for (int i = 0; i < 64 && !s->stopping; i++) {
        table *t = s->tables[i];
        if (t && t->retry_at && t->retry_at <= now) {
            t->retry_at = 0;
            table_start_game(t);
        }
    }
    if (!s->stopping)
        retry_arm(s);
}

/* The game itself, once the seats and the deal are settled. */
static void table_start_game(table *t)
{
    server *s = t->srv;
    const aw_netserver_opts *o = s->o;
    const aw_settings *set = o->game.settings;
    aw_error err;
    for (int k = 1; k <= set->players; k++) {
        int a = s->local_number[k];
        if (a && !(t->seats[a] = o->make_local(o->ud, k, &err))) {
            char m[sizeof err.msg + 40];
            snprintf(m, sizeof m, "cannot make local seat %d: %s", k, err.msg);
            table_retry(t, m);
            return;
        }
    }
    /* Roles asked for, first come in the game's random order (t->ask) while
     * the table has room. */
    int left[AW_NROLES];
    memcpy(left, set->role_count, sizeof left);
    for (int a = 1; a <= set->players; a++)
        if (t->deal[a] != AW_ROLE_NONE && left[t->deal[a]] > 0)
            left[t->deal[a]]--;
    for (int i = 0; i < set->players; i++) {
        int a = t->ask[i];
        remote *r = t->remotes[a];
        if (r && t->deal[a] == AW_ROLE_NONE && r->asked != AW_ROLE_NONE && left[r->asked] > 0) {
            t->deal[a] = r->asked;
            left[r->asked]--;
        }
    }
    aw_game_opts go = o->game;
    go.seed = o->game.seed + (uint64_t)t->gno;
    go.game_no = (int)t->gno;
    go.log = NULL;
    go.deal = t->deal;
    int before = o->before ? o->before(o->ud, t->gno, go.seed, &go.log) : 0;
    if (before == AW_NETSERVER_RETRY) {
        table_retry(t, "its log cannot be opened");
        return;
    }
    if (before < 0) {
        stop(s);
        return;
    }
    t->log = go.log;
    if (o->nlp) {
        /* a ULID as the official server's: the time, and bits one-way from
         * the seed (they tell nothing of it) */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        uint64_t ms = (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
        aw_nlp_game_id(ms, aw_rng_derive(go.seed, 0x6e6c7069643121ull), aw_rng_derive(go.seed, 0x6e6c7069643221ull),
                       t->game_id);
    }
    t->gm = aw_game_start(&go, t->seats, &err);
    if (!t->gm) {
        say(s, "game %ld cannot start: %s", t->gno + 1, err.msg);
        stop(s);
        return;
    }
    say(s, "game %ld of %ld starts (seed %llu)", t->gno + 1, o->games, (unsigned long long)go.seed);
    table_run(t);
}

static int start_table(server *s)
{
    const aw_netserver_opts *o = s->o;
    const aw_settings *set = o->game.settings;
    table *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    t->srv = s;
    t->gno = s->started++;
    s->running++;
    for (int i = 0; i < 64; i++)
        if (!s->tables[i]) {
            s->tables[i] = t;
            break;
        }
    for (int a = 0; a <= AW_MAX_PLAYERS; a++)
        t->deal[a] = o->deal ? o->deal[a] : AW_ROLE_NONE;
    /* Each remote number to a connection that holds it (numbers_init). */
    int nfree = 0;
    for (int a = 1; a <= set->players; a++) {
        if (s->is_local[a])
            continue;
        remote *r = lobby_take_number(s, a);
        r->table = t;
        r->pending = -1;
        r->asked = AW_ROLE_NONE;
        t->remotes[a] = r;
        t->seats[a] = &r->base;
        nfree++;
    }
    /* As the official server, which asks ROLE in an order shuffled every
     * game: requests are honoured first come in that order. */
    for (int i = 0; i < set->players; i++)
        t->ask[i] = i + 1;
    aw_rng_shuffle(&s->seating, t->ask, set->players);
    if (!o->role_requests || nfree == 0 || o->nlp) {
        table_start_game(t);
        return 0;
    }
    /* Ask ROLE, then deal (the requests first, in table_start_game). */
    for (int a = 1; a <= set->players; a++) {
        remote *r = t->remotes[a];
        if (!r)
            continue;
        aw_buf b;
        aw_buf_init(&b);
        aw_seat_fault f;
        aw_wire_seat_reset(&r->ws, 0);
        if (aw_wire_seat_send(&r->ws, AW_WIRE_REQ_ROLE, NULL, NULL, &b, &f) == 0 && remote_send(r, &b) == 0) {
            r->pending = AW_WIRE_REQ_ROLE;
            t->owed++;
            uv_timer_start(&r->timer, on_deadline, (uint64_t)o->time_limit_ms, 0);
        }
        aw_buf_free(&b);
    }
    if (t->owed == 0)
        table_start_game(t);
    return 0;
}

static void lobby_check(server *s)
{
    int par = s->o->parallel < 1 ? 1 : s->o->parallel > 64 ? 64 : s->o->parallel;
    while (!s->stopping && s->running < par && s->started < s->o->games && lobby_can_seat(s)) {
        if (start_table(s) < 0) {
            stop(s);
            return;
        }
    }
}

/* ---- connections --------------------------------------------------------- */

static void addr_text(const struct sockaddr_storage *ss, char *out, size_t cap)
{
    const void *a = ss->ss_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr
                                                : (const void *)&((const struct sockaddr_in *)ss)->sin_addr;
    if (!inet_ntop(ss->ss_family == AF_INET6 ? AF_INET6 : AF_INET, a, out, (socklen_t)cap))
        snprintf(out, cap, "an unknown address");
}

static const char *const refusal_what[NREFUSALS] = {
    "refusing connections (over --max-connections)", "refusing connections (over --max-per-address)",
    "refusing connections (out of resources)", "closing a connection before its NAME",
    "refusing an agent without a valid token (--jwt-secret)"};

static const char *const refusal_line[NREFUSALS] = {
    "aiwolf serve: too many connections; try again later\n",
    "aiwolf serve: too many connections from your address; try again later\n",
    "aiwolf serve: out of resources; try again later\n",
    NULL,
    NULL,
};

/* Logs a refusal, at most once every REFUSAL_QUIET_MS for each kind: the
 * line counts those not logged since the last. */
static void refusal_note(server *s, enum refusal why, const char *detail)
{
    uint64_t now = aw_now_ns();
    if (s->refusal_said[why] && now - s->refusal_said[why] < (uint64_t)REFUSAL_QUIET_MS * 1000000) {
        s->refusal_unsaid[why]++;
        return;
    }
    if (s->refusal_unsaid[why])
        say(s, "%s: %s (and %ld more since the last such message)", refusal_what[why], detail,
            s->refusal_unsaid[why]);
    else
        say(s, "%s: %s", refusal_what[why], detail);
    s->refusal_said[why] = now;
    s->refusal_unsaid[why] = 0;
}

/* Says why in one line, best effort (the socket is new: its send buffer is
 * empty), and closes. */
static void refuse(server *s, int fd, enum refusal why, const char *detail)
{
    const char *l = refusal_line[why];
    (void)!send(fd, l, strlen(l), MSG_NOSIGNAL | MSG_DONTWAIT);
    shutdown(fd, SHUT_WR);
    close(fd);
    refusal_note(s, why, detail);
}

/* A new connection within the limits, counted as c: a remote, asked its
 * NAME. */
static void admit(server *s, int fd, aw_conn *c)
{
    remote *r = calloc(1, sizeof *r);
    if (!r) {
        aw_connlimit_close(&s->conns, c);
        refuse(s, fd, REFUSE_RESOURCES, "out of memory");
        return;
    }
    r->base.ops = &rseat_ops;
    r->srv = s;
    r->pending = -1;
    r->tc = c; /* counted back when the tcp handle closes */
    c->owner = r;
    aw_wire_seat_init(&r->ws, NAME_MAX_LINE);
    uv_tcp_init(&s->loop, &r->tcp);
    uv_timer_init(&s->loop, &r->timer);
    r->tcp.data = r->timer.data = r;
    r->handles = 2;
    if (uv_tcp_open(&r->tcp, fd) != 0) {
        close(fd); /* not the handle's */
        remote_close(r);
        return;
    }
    uv_tcp_nodelay(&r->tcp, 1);
    aw_buf b;
    aw_buf_init(&b);
    aw_seat_fault f;
    aw_wire_seat_reset(&r->ws, 0);
    aw_wire_seat_send(&r->ws, AW_WIRE_REQ_NAME, NULL, NULL, &b, &f);
    int sent = remote_send(r, &b);
    aw_buf_free(&b);
    if (sent < 0 || uv_read_start((uv_stream_t *)&r->tcp, on_alloc, on_read) != 0) {
        remote_close(r);
        return;
    }
    r->pending = AW_WIRE_REQ_NAME;
    uv_timer_start(&r->timer, on_deadline, (uint64_t)s->name_ms, 0);
    /* Until it has a name it sits in no list; a server that stops closes
     * it through the loop walk below. */
}

static void on_listen(uv_poll_t *h, int status, int events);
static aw_conn *conn_open(server *s, const struct sockaddr_storage *ss, uint64_t id, enum refusal *no, char *at,
                          size_t cap);

static void on_accept_backoff_end(uv_timer_t *tm)
{
    server *s = tm->data;
    if (!s->stopping)
        uv_poll_start(&s->listen_poll, UV_READABLE, on_listen);
}

/* accept failed for want of descriptors or memory: the connections wait in
 * the kernel's queue, and the listening socket stays readable. Refuse those
 * waiting (one at a time in the spare descriptor's place) when there is a
 * spare, then stop listening for a while (longer each time in a row)
 * rather than spin. */
static void accept_failed(server *s, int e)
{
    if ((e == EMFILE || e == ENFILE) && s->spare_fd >= 0) {
        close(s->spare_fd);
        s->spare_fd = -1;
        for (int i = 0; i < 1024; i++) {
            int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0)
                break;
            refuse(s, fd, REFUSE_RESOURCES, strerror(e));
        }
        s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    } else {
        refusal_note(s, REFUSE_RESOURCES, strerror(e));
    }
    s->accept_backoff_ms = s->accept_backoff_ms ? s->accept_backoff_ms * 2 : ACCEPT_BACKOFF_FIRST_MS;
    if (s->accept_backoff_ms > ACCEPT_BACKOFF_MAX_MS)
        s->accept_backoff_ms = ACCEPT_BACKOFF_MAX_MS;
    uv_poll_stop(&s->listen_poll);
    uv_timer_start(&s->accept_timer, on_accept_backoff_end, s->accept_backoff_ms, 0);
}

static void on_listen(uv_poll_t *h, int status, int events)
{
    server *s = h->data;
    (void)events;
    if (status < 0 || s->stopping)
        return;
    if (s->spare_fd < 0)
        s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    for (int i = 0; i < 64; i++) { /* then the loop's other work */
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        memset(&ss, 0, sizeof ss);
        int fd = accept4(s->listen_fd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            if (e == EAGAIN || e == EWOULDBLOCK)
                return;
            if (e == EINTR || e == ECONNABORTED || e == EPROTO || e == EPERM)
                continue; /* that one connection is gone; the next may be fine */
            accept_failed(s, e);
            return;
        }
        s->accept_backoff_ms = 0;
        char at[INET6_ADDRSTRLEN + 64];
        enum refusal no;
        aw_conn *c = conn_open(s, &ss, 0, &no, at, sizeof at);
        if (!c) {
            refuse(s, fd, no, at);
            continue;
        }
        admit(s, fd, c);
    }
}

/* ---- connections counted, both transports ------------------------------ */

/* c was dropped to make room under limit (connlimit.h): closed at once. */
static void conn_dropped(server *s, aw_conn *c, enum aw_conn_verdict limit)
{
    char why[128];
    snprintf(why, sizeof why, "dropped to make room for a new connection (%s)",
             limit == AW_CONN_OVER_ADDRESS ? "over --max-per-address" : "over --max-connections");
    remote *r = c->owner;
    uint64_t id = c->id;
    free(c);
    if (r) {
        r->tc = NULL;
        remote_drop(r, why); /* closes it (the transport's: at once below) */
    } else {
        refusal_note(s, DROP_UNNAMED, why);
    }
    if (s->o->nlp && s->o->nlp->drop)
        s->o->nlp->drop(s->tp, id);
}

/* A new connection from ss, with the transport's id: counted (perhaps in
 * the place of one dropped), or NULL with the refusal and its detail in
 * at[0..cap). */
static aw_conn *conn_open(server *s, const struct sockaddr_storage *ss, uint64_t id, enum refusal *no, char *at,
                          size_t cap)
{
    unsigned char key[16];
    aw_conn_addr_key(ss, key);
    aw_conn *dropped;
    enum aw_conn_verdict why;
    aw_conn *c = aw_connlimit_open(&s->conns, key, id, &dropped, &why);
    if (dropped)
        conn_dropped(s, dropped, why);
    if (c)
        return c;
    addr_text(ss, at, cap);
    if (why == AW_CONN_OVER_ADDRESS) {
        *no = REFUSE_ADDRESS;
        snprintf(at + strlen(at), cap - strlen(at), " has %d open", aw_connlimit_at(&s->conns, key));
    } else if (why == AW_CONN_OVER_TOTAL) {
        *no = REFUSE_FULL;
        snprintf(at + strlen(at), cap - strlen(at), ", %d connections open", s->conns.open);
    } else {
        *no = REFUSE_RESOURCES;
        snprintf(at, cap, "out of memory");
    }
    return NULL;
}

const char *aw_netserver_connected(aw_netserver *s, uint64_t client, const struct sockaddr *addr)
{
    if (s->stopping || s->tp_stopped)
        return refusal_line[REFUSE_FULL];
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    memcpy(&ss, addr, addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in));
    char at[INET6_ADDRSTRLEN + 64];
    enum refusal no;
    if (conn_open(s, &ss, client, &no, at, sizeof at))
        return NULL;
    refusal_note(s, no, at);
    return refusal_line[no];
}

void aw_netserver_disconnected(aw_netserver *s, uint64_t client)
{
    aw_conn *c = aw_connlimit_find(&s->conns, client);
    if (!c)
        return;
    if (c->owner)
        ((remote *)c->owner)->tc = NULL;
    aw_connlimit_close(&s->conns, c);
}

int aw_netserver_max_connections(int parallel, int extra_fds)
{
    struct rlimit rl;
    long lim = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : 1024;
    if (lim > 1000000)
        lim = 1000000;
    long n = lim - 64 - 4L * (parallel < 1 ? 1 : parallel) - (extra_fds > 0 ? extra_fds : 0);
    return n < 16 ? 16 : (int)n;
}

/* The listening socket, bound and listening, non-blocking; or -1 with err. */
static int listen_on(const char *host, int port, aw_error *err)
{
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    if (strcmp(host, "localhost") == 0) /* as the web pages take it */
        host = "127.0.0.1";
    int rc = strchr(host, ':') ? uv_ip6_addr(host, port, (struct sockaddr_in6 *)&addr)
                               : uv_ip4_addr(host, port, (struct sockaddr_in *)&addr);
    if (rc != 0) {
        aw_fail(err, AW_EIO,
                "cannot listen on %s:%d: '%s' is not an IP address (give one such as 127.0.0.1, 0.0.0.0, :: or "
                "localhost)",
                host, port, host);
        return -1;
    }
    int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        aw_fail(err, AW_EIO, "cannot listen on %s:%d: %s", host, port, strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t len = addr.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    /* A deep queue: a burst of connections waits there to be accepted or
     * refused, rather than having its SYNs dropped (the kernel caps it at
     * net.core.somaxconn). */
    if (bind(fd, (struct sockaddr *)&addr, len) != 0 || listen(fd, 1024) != 0) {
        int e = errno;
        close(fd);
        aw_fail(err, AW_EIO, "cannot listen on %s:%d: %s", host, port, strerror(e));
        return -1;
    }
    return fd;
}

static void close_walk(uv_handle_t *h, void *arg)
{
    server *s = arg;
    if (uv_is_closing(h))
        return;
    if (h == (uv_handle_t *)&s->listen_poll || h == (uv_handle_t *)&s->sigint || h == (uv_handle_t *)&s->sigterm ||
        h == (uv_handle_t *)&s->kick || h == (uv_handle_t *)&s->wake || h == (uv_handle_t *)&s->local_timer ||
        h == (uv_handle_t *)&s->accept_timer || h == (uv_handle_t *)&s->retry_timer ||
        (h == (uv_handle_t *)&s->tp_drain && !s->tp)) {
        uv_close(h, NULL);
        return;
    }
    if (h->type == UV_TCP && !s->o->nlp) /* in NLP mode the transport's, if any */
        remote_close(h->data);
}

static void tp_stop(server *s)
{
    if (s->tp_stopped)
        return;
    s->tp_stopped = true;
    uv_close((uv_handle_t *)&s->tp_drain, NULL);
    s->o->nlp->stop(s->tp);
}

static void on_tp_drain(uv_timer_t *tm)
{
    tp_stop(tm->data);
}

static void stop(server *s)
{
    if (s->stopping)
        return;
    s->stopping = true;
    /* Games under way are abandoned: their logs end where they stopped. */
    for (int i = 0; i < 64; i++)
        if (s->tables[i])
            table_end(s->tables[i], false);
    /* NLP agents: each is closed once what it is owed (FINISH) is sent; the
     * transport ends when they have gone, or after TP_DRAIN_MS at most. */
    while (s->msgs)
        remote_close(s->msgs); /* takes it off the list */
    if (s->tp && s->tp_clients == 0)
        tp_stop(s);
    else if (s->tp)
        uv_timer_start(&s->tp_drain, on_tp_drain, TP_DRAIN_MS, 0);
    uv_walk(&s->loop, close_walk, s);
    if (s->listen_fd >= 0)
        close(s->listen_fd); /* its poll handle is closing */
    s->listen_fd = -1;
    if (s->spare_fd >= 0)
        close(s->spare_fd);
    s->spare_fd = -1;
    for (int k = 0; k < NREFUSALS; k++)
        if (s->refusal_unsaid[k])
            say(s, "%s: %ld more since the last such message", refusal_what[k], s->refusal_unsaid[k]);
}

static void on_signal(uv_signal_t *sig, int signum)
{
    server *s = sig->data;
    say(s, "%s: stopping (%ld of %ld games finished)", signum == SIGINT ? "interrupted" : "terminated", s->finished,
        s->o->games);
    stop(s);
}

int aw_netserver_run(const aw_netserver_opts *o, aw_tally *t, aw_error *err)
{
    server *s = calloc(1, sizeof *s);
    if (!s)
        return aw_fail(err, AW_ENOMEM, "out of memory");
    s->o = o;
    s->tally = t;
    s->err = err;
    for (int a = 1; a <= o->game.settings->players; a++)
        s->remote_seats += !o->local[a];
    int par = o->parallel < 1 ? 1 : o->parallel > 64 ? 64 : o->parallel;
    int max_conn = o->max_connections > 0 ? o->max_connections : aw_netserver_max_connections(par, 0);
    int max_addr = o->max_per_address > 0 ? o->max_per_address : 2 * s->remote_seats * par;
    if (max_addr < 2)
        max_addr = 2;
    s->name_ms = o->name_timeout_ms > 0 ? o->name_timeout_ms : NAME_LIMIT_MS;
    s->lobby_ms = o->lobby_timeout_ms > 0 ? o->lobby_timeout_ms : LOBBY_LIMIT_MS;
    if (aw_connlimit_init(&s->conns, max_conn, max_addr, aw_rng_os_seed()) < 0) {
        aw_connlimit_free(&s->conns);
        free(s);
        return aw_fail(err, AW_ENOMEM, "out of memory");
    }
    s->spare_fd = -1;
    aw_rng_seed(&s->seating, aw_rng_derive(o->game.seed, 0x736561747321ull));
    numbers_init(s);
    const char *host = o->bind ? o->bind : "127.0.0.1";
    s->listen_fd = o->nlp ? -1 : listen_on(host, o->port, err);
    if ((!o->nlp && s->listen_fd < 0) || uv_loop_init(&s->loop) != 0) {
        if (s->listen_fd >= 0) {
            close(s->listen_fd);
            aw_fail(err, AW_EIO, "cannot start the event loop");
        }
        aw_connlimit_free(&s->conns);
        free(s);
        return -AW_EIO;
    }
    int port = 0;
    uv_timer_init(&s->loop, &s->tp_drain);
    s->tp_drain.data = s;
    if (o->nlp) {
        if (!(s->tp = o->nlp->start(o->nlp->ud, &s->loop, s, &port, err))) {
            uv_close((uv_handle_t *)&s->tp_drain, NULL);
            uv_run(&s->loop, UV_RUN_DEFAULT); /* what the transport left closing */
            uv_loop_close(&s->loop);
            aw_connlimit_free(&s->conns);
            free(s);
            return -AW_EIO;
        }
    } else {
        struct sockaddr_storage bound;
        socklen_t blen = sizeof bound;
        getsockname(s->listen_fd, (struct sockaddr *)&bound, &blen);
        port = bound.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&bound)->sin6_port)
                                           : ntohs(((struct sockaddr_in *)&bound)->sin_port);
        uv_poll_init(&s->loop, &s->listen_poll, s->listen_fd);
    }
    uv_signal_init(&s->loop, &s->sigint);
    uv_signal_init(&s->loop, &s->sigterm);
    uv_timer_init(&s->loop, &s->kick);
    uv_async_init(&s->loop, &s->wake, on_wake);
    uv_timer_init(&s->loop, &s->local_timer);
    uv_timer_init(&s->loop, &s->accept_timer);
    uv_timer_init(&s->loop, &s->retry_timer);
    s->listen_poll.data = s->accept_timer.data = s->retry_timer.data = s;
    s->sigint.data = s->sigterm.data = s->kick.data = s->wake.data = s->local_timer.data = s;
    uv_signal_start(&s->sigint, on_signal, SIGINT);
    uv_signal_start(&s->sigterm, on_signal, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    s->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (o->nlp) {
        say(s,
            "listening for NLP agents (WebSocket) on port %d for %d remote agent%s a game, %ld game%s (at most %d "
            "connections, %d from one address)",
            port, s->remote_seats, s->remote_seats == 1 ? "" : "s", o->games, o->games == 1 ? "" : "s", s->conns.max_conn,
            s->conns.max_addr);
    } else {
        uv_poll_start(&s->listen_poll, UV_READABLE, on_listen);
        say(s,
            "listening on %s:%d for %d remote agent%s a game, %ld game%s (at most %d connections, %d from one "
            "address)",
            host, port, s->remote_seats, s->remote_seats == 1 ? "" : "s", o->games, o->games == 1 ? "" : "s",
            s->conns.max_conn, s->conns.max_addr);
    }
    if (o->ready)
        o->ready(o->ud, port);
    s->t0 = aw_now_ns();
    uv_timer_start(&s->kick, on_kick, 0, 0); /* games of local agents only start at once */
    uv_run(&s->loop, UV_RUN_DEFAULT);
    int closed = uv_loop_close(&s->loop);
    if (s->listen_fd >= 0) /* stop() closes them; a loop that ran dry did not */
        close(s->listen_fd);
    if (s->spare_fd >= 0)
        close(s->spare_fd);
    aw_connlimit_free(&s->conns); /* the transport stopped with its connections */
    free(s);
    if (closed != 0)
        return aw_fail(err, AW_EIO, "internal error: handles left open at the end (%s)", uv_strerror(closed));
    return 0;
}
