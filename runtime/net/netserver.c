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
 * time-outs. In between, the loop sleeps. */
#include "netserver.h"

#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "rng.h"
#include "wire.h"
#include "wireseat.h"

#define MAX_REPLY ((size_t)64 << 10) /* longest reply line accepted */
#define NAME_LIMIT_MS 5000           /* to answer NAME, which also starts the agent */

typedef struct server server;
typedef struct table table;

typedef struct remote {
    aw_seat base;
    server *srv;
    uv_tcp_t tcp;
    uv_timer_t timer;
    int handles;      /* open libuv handles; freed when both are closed */
    aw_wire_seat ws;
    char name[65];
    bool named, gone, closing;
    char gone_msg[200];
    table *table;     /* the game it plays, or NULL (lobby or naming) */
    int agent;
    int number;       /* its agent number for the session (0: none: unnamed, or gone) */
    int pending;      /* the request whose answer is owed, or -1 */
    aw_role asked;    /* the role it asked for (ROLE), or AW_ROLE_NONE */
    struct remote *next; /* in the lobby */
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
};

struct server {
    uv_loop_t loop;
    uv_tcp_t listener;
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

/* ---- a remote agent ---------------------------------------------------- */

static void remote_free(remote *r)
{
    aw_wire_seat_free(&r->ws);
    free(r);
}

/* A remote is freed when both its handles are closed and no game holds it
 * (a game that lost it frees it at its end). */
static void remote_handle_closed(uv_handle_t *h)
{
    remote *r = h->data;
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
    uv_close((uv_handle_t *)&r->tcp, remote_handle_closed);
    uv_close((uv_handle_t *)&r->timer, remote_handle_closed);
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
    say(s, "%s (%s): %s", r->named ? r->name : "a new connection", r->table ? "in a game" : "waiting", why);
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
        remote_drop(r, "no answer to NAME in time");
        return;
    }
    snprintf(m, sizeof m, "%s: no answer within %d ms", rname ? rname : "?", r->srv->o->time_limit_ms);
    aw_wire_seat_expire(&r->ws); /* its answer, if it comes, is dropped */
    remote_fault(r, AW_FAULT_TIMEOUT, m);
}

/* A reply line is complete. */
static void remote_reply(remote *r)
{
    aw_seat_reply reply;
    aw_seat_fault f = {AW_FAULT_NONE, ""};
    int kind = r->pending;
    if (kind == AW_WIRE_REQ_NAME) {
        r->pending = -1;
        uv_timer_stop(&r->timer);
        aw_wire_seat_reply(&r->ws, AW_WIRE_REQ_NAME, &reply, &f);
        size_t n = reply.text ? reply.len : 0;
        if (n == 0) {
            remote_drop(r, "an empty name");
            return;
        }
        if (n > sizeof r->name - 1)
            n = sizeof r->name - 1;
        memcpy(r->name, reply.text, n);
        r->name[n] = '\0';
        r->named = true;
        r->number = number_take(r->srv);
        r->next = r->srv->lobby;
        r->srv->lobby = r;
        r->srv->nlobby++;
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
    if (aw_wire_seat_reply(&r->ws, kind, &reply, &f) < 0) {
        remote_answer(r, -1, NULL, &f); /* not a target: no answer, the agent plays on */
        return;
    }
    remote_answer(r, 0, &reply, &f);
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
    int rc = aw_wire_seat_feed(&r->ws, buf->base, (size_t)n, &f);
    if (rc < 0) {
        char m[sizeof f.msg];
        snprintf(m, sizeof m, "%s", f.msg);
        remote_drop(r, m);
        return;
    }
    if (rc == 1)
        remote_reply(r);
}

/* ---- the seat interface for a remote agent in a game ------------------- */

static const char *rseat_begin(aw_seat *base, int agent, uint64_t agent_seed, aw_seat_fault *f)
{
    remote *r = (remote *)base;
    (void)f;
    r->agent = agent;
    aw_wire_seat_reset(&r->ws, agent_seed);
    r->ws.cur.role_request = r->srv->o->role_requests; /* INITIALIZE says the server asked ROLE */
    return r->name;
}

static int rseat_request(aw_seat *base, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                         aw_seat_reply *reply, aw_seat_fault *f)
{
    remote *r = (remote *)base;
    (void)reply;
    if (r->gone) {
        f->kind = AW_FAULT_LOST;
        snprintf(f->msg, sizeof f->msg, "out of this game: %s", r->gone_msg);
        return -1;
    }
    aw_buf b;
    aw_buf_init(&b);
    if (aw_wire_seat_send(&r->ws, (int)kind, info, set, &b, f) < 0) {
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
 * longest (the lobby's newest come first), or NULL. */
static remote *lobby_take_number(server *s, int a)
{
    remote *found = NULL;
    for (remote *r = s->lobby; r; r = r->next)
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
        say(s, "game %ld ended: %s won on day %d (%ld of %ld done)", t->gno + 1, aw_team_name(res.winner), res.days,
            s->finished, s->o->games);
    }
    for (int a = 1; a <= set->players; a++) {
        remote *r = t->remotes[a];
        if (r) {
            r->table = NULL;
            r->pending = -1;
            if (r->closing && r->handles == 0)
                remote_free(r);
            else if (!r->gone && r->srv->started < s->o->games) {
                r->next = s->lobby;
                s->lobby = r;
                s->nlobby++;
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
            say(s, "cannot make local seat %d: %s", k, err.msg);
            stop(s);
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
    if (o->before && o->before(o->ud, t->gno, go.seed, &go.log) < 0) {
        stop(s);
        return;
    }
    t->log = go.log;
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
    if (!o->role_requests || nfree == 0) {
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

static void on_connection(uv_stream_t *l, int status)
{
    server *s = l->data;
    if (status < 0 || s->stopping)
        return;
    remote *r = calloc(1, sizeof *r);
    if (!r)
        return;
    r->base.ops = &rseat_ops;
    r->srv = s;
    r->pending = -1;
    aw_wire_seat_init(&r->ws, MAX_REPLY);
    uv_tcp_init(&s->loop, &r->tcp);
    uv_timer_init(&s->loop, &r->timer);
    r->tcp.data = r->timer.data = r;
    r->handles = 2;
    if (uv_accept(l, (uv_stream_t *)&r->tcp) != 0) {
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
    if (sent < 0) {
        remote_close(r);
        return;
    }
    r->pending = AW_WIRE_REQ_NAME;
    uv_timer_start(&r->timer, on_deadline, NAME_LIMIT_MS, 0);
    uv_read_start((uv_stream_t *)&r->tcp, on_alloc, on_read);
    /* Until it has a name it sits in no list; a server that stops closes
     * it through the loop walk below. */
}

static void close_walk(uv_handle_t *h, void *arg)
{
    server *s = arg;
    if (uv_is_closing(h))
        return;
    if (h == (uv_handle_t *)&s->listener || h == (uv_handle_t *)&s->sigint || h == (uv_handle_t *)&s->sigterm ||
        h == (uv_handle_t *)&s->kick || h == (uv_handle_t *)&s->wake || h == (uv_handle_t *)&s->local_timer) {
        uv_close(h, NULL);
        return;
    }
    if (h->type == UV_TCP)
        remote_close(h->data);
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
    uv_walk(&s->loop, close_walk, s);
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
    aw_rng_seed(&s->seating, aw_rng_derive(o->game.seed, 0x736561747321ull));
    numbers_init(s);
    if (uv_loop_init(&s->loop) != 0) {
        free(s);
        return aw_fail(err, AW_EIO, "cannot start the event loop");
    }
    struct sockaddr_storage addr;
    const char *host = o->bind ? o->bind : "127.0.0.1";
    int rc = strchr(host, ':') ? uv_ip6_addr(host, o->port, (struct sockaddr_in6 *)&addr)
                               : uv_ip4_addr(host, o->port, (struct sockaddr_in *)&addr);
    uv_tcp_init(&s->loop, &s->listener);
    s->listener.data = s;
    if (rc == 0)
        rc = uv_tcp_bind(&s->listener, (const struct sockaddr *)&addr, 0);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&s->listener, 128, on_connection);
    if (rc != 0) {
        aw_fail(err, AW_EIO, "cannot listen on %s:%d: %s", host, o->port, uv_strerror(rc));
        uv_close((uv_handle_t *)&s->listener, NULL);
        uv_run(&s->loop, UV_RUN_DEFAULT);
        uv_loop_close(&s->loop);
        free(s);
        return -AW_EIO;
    }
    struct sockaddr_storage bound;
    int blen = sizeof bound;
    uv_tcp_getsockname(&s->listener, (struct sockaddr *)&bound, &blen);
    int port = bound.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&bound)->sin6_port)
                                           : ntohs(((struct sockaddr_in *)&bound)->sin_port);
    uv_signal_init(&s->loop, &s->sigint);
    uv_signal_init(&s->loop, &s->sigterm);
    uv_timer_init(&s->loop, &s->kick);
    uv_async_init(&s->loop, &s->wake, on_wake);
    uv_timer_init(&s->loop, &s->local_timer);
    s->sigint.data = s->sigterm.data = s->kick.data = s->wake.data = s->local_timer.data = s;
    uv_signal_start(&s->sigint, on_signal, SIGINT);
    uv_signal_start(&s->sigterm, on_signal, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    say(s, "listening on %s:%d for %d remote agent%s a game, %ld game%s", host, port, s->remote_seats,
        s->remote_seats == 1 ? "" : "s", o->games, o->games == 1 ? "" : "s");
    if (o->ready)
        o->ready(o->ud, port);
    s->t0 = aw_now_ns();
    uv_timer_start(&s->kick, on_kick, 0, 0); /* games of local agents only start at once */
    uv_run(&s->loop, UV_RUN_DEFAULT);
    int closed = uv_loop_close(&s->loop);
    free(s);
    if (closed != 0)
        return aw_fail(err, AW_EIO, "internal error: handles left open at the end (%s)", uv_strerror(closed));
    return 0;
}
