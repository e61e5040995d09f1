/* live: the live spectator and human seat pages (see live.h). */
#include "live.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "humanseat.h"
#include "pages.h"
#include "protocol.h"
#include "spectate.h"
#include "viewdata.h"

/* The pages of this module, embedded from runtime/web/pages/ like the
 * viewer's (cmake/embed_text.cmake). */
extern const char *const aw_page_live_html;
extern const size_t aw_page_live_html_len;
extern const char *const aw_page_live_js;
extern const size_t aw_page_live_js_len;
extern const char *const aw_page_live_css;
extern const size_t aw_page_live_css_len;
extern const char *const aw_page_human_html;
extern const size_t aw_page_human_html_len;
extern const char *const aw_page_human_js;
extern const size_t aw_page_human_js_len;

#define KEEP_FINISHED 50      /* finished games listed (and replayable) */
#define GAME_BACKLOG 1000000  /* lines a late spectator gets: a whole game */

struct aw_live_game {
    aw_live *l;
    int id;
    char name[96];
    time_t started;
    enum { RUNNING, FINISHED, ABANDONED } state;
    aw_spectate *sp;
    aw_web_chan *chan;
    bool over;          /* its result went out: the rest is not paced */
    aw_buf said;        /* a talk line with its sentences (spectate_sink's) */
    aw_live_game *next; /* newest first */
};

typedef struct live_human {
    aw_live *l;
    int seat;
    char name[65];
    aw_seat *h;
    aw_web_chan *chan;
} live_human;

struct aw_live {
    aw_web *w;
    bool reveal;
    pthread_mutex_t mu; /* games, next_id, humans[] (set while the web may already run) */
    aw_live_game *games;
    int next_id;
    live_human *humans[AW_MAX_PLAYERS + 1];
    /* --pace: ms after each public line while a game runs; pace_cv wakes a
     * pause when the pacing is stopped (Ctrl-C), both under pace_mu */
    int pace_ms;
    bool pace_stopped;
    pthread_mutex_t pace_mu;
    pthread_cond_t pace_cv;
};

/* ---- pages and the API --------------------------------------------------- */

static void respond(aw_web_response *res, const char *type, const char *data, size_t len)
{
    res->type = type;
    aw_buf_add(&res->body, data, len);
}

static void get_asset(void *ud, const aw_web_request *req, aw_web_response *res)
{
    (void)ud;
    if (strcmp(req->path, "/live.js") == 0)
        respond(res, AW_WEB_JS, aw_page_live_js, aw_page_live_js_len);
    else if (strcmp(req->path, "/live.css") == 0)
        respond(res, AW_WEB_CSS, aw_page_live_css, aw_page_live_css_len);
    else if (strcmp(req->path, "/human.js") == 0)
        respond(res, AW_WEB_JS, aw_page_human_js, aw_page_human_js_len);
    else
        respond(res, AW_WEB_HTML, aw_page_live_html, aw_page_live_html_len);
}

/* The value of key in a query string ("a=1&token=x"), up to the next '&'
 * (or to the end when `rest`: a text may hold '&'). */
static const char *query_value(const char *query, const char *key, bool rest, size_t *len)
{
    size_t kl = strlen(key);
    for (const char *p = query; p && *p;) {
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            const char *v = p + kl + 1;
            const char *amp = rest ? NULL : strchr(v, '&');
            *len = amp ? (size_t)(amp - v) : strlen(v);
            return v;
        }
        p = strchr(p, '&');
        if (p)
            p++;
    }
    return NULL;
}

static live_human *human_of_path(aw_live *l, const char *rest)
{
    long a = 0;
    char num[8];
    size_t n = strcspn(rest, "/?");
    if (n == 0 || n >= sizeof num)
        return NULL;
    memcpy(num, rest, n);
    num[n] = 0;
    if (aw_parse_long(num, 1, AW_MAX_PLAYERS, &a) != 0)
        return NULL;
    pthread_mutex_lock(&l->mu);
    live_human *lh = l->humans[a];
    pthread_mutex_unlock(&l->mu);
    return lh;
}

static bool token_in(const live_human *lh, const char *query)
{
    size_t len = 0;
    const char *t = query_value(query, "token", false, &len);
    return t && aw_human_token_ok(lh->h, t, len);
}

static void get_human(void *ud, const aw_web_request *req, aw_web_response *res)
{
    aw_live *l = ud;
    live_human *lh = human_of_path(l, req->rest);
    if (!lh) {
        res->status = 404;
        aw_buf_adds(&res->body, "no human seat here\n");
    } else if (!token_in(lh, req->query)) {
        res->status = 403;
        aw_buf_adds(&res->body, "this page needs the seat's token: use the address the server printed\n");
    } else {
        respond(res, AW_WEB_HTML, aw_page_human_html, aw_page_human_html_len);
    }
}

static void get_games(void *ud, const aw_web_request *req, aw_web_response *res)
{
    (void)req;
    aw_live *l = ud;
    static const char *const states[] = {"running", "finished", "abandoned"};
    res->type = AW_WEB_JSON;
    aw_buf *b = &res->body;
    aw_buf_printf(b, "{\"reveal\":%s,\"games\":[", l->reveal ? "true" : "false");
    pthread_mutex_lock(&l->mu);
    for (aw_live_game *g = l->games; g; g = g->next) {
        aw_buf_printf(b, "%s{\"id\":%d,\"name\":", g == l->games ? "" : ",", g->id);
        aw_buf_add_json(b, g->name, strlen(g->name));
        aw_buf_printf(b, ",\"state\":\"%s\",\"started\":%lld}", states[g->state], (long long)g->started);
    }
    aw_buf_adds(b, "],\"humans\":[");
    bool first = true;
    for (int a = 1; a <= AW_MAX_PLAYERS; a++)
        if (l->humans[a]) {
            aw_buf_printf(b, "%s{\"seat\":%d,\"name\":", first ? "" : ",", a);
            aw_buf_add_json(b, l->humans[a]->name, strlen(l->humans[a]->name));
            aw_buf_addc(b, '}');
            first = false;
        }
    pthread_mutex_unlock(&l->mu);
    aw_buf_adds(b, "]}");
}

static int parse_mode(const char *m, size_t len, aw_validation *mode)
{
    if (len == 6 && strncmp(m, "strict", 6) == 0)
        *mode = AW_VALIDATE_STRICT;
    else if (len == 7 && strncmp(m, "lenient", 7) == 0)
        *mode = AW_VALIDATE_LENIENT;
    else if (len == 3 && strncmp(m, "off", 3) == 0)
        *mode = AW_VALIDATE_OFF;
    else
        return -1;
    return 0;
}

/* {"type":"check","ok":...,"error":...,"col":N} for text under mode. */
static void check_json(const char *text, size_t len, aw_validation mode, aw_buf *b)
{
    aw_error err = {"", 0, 0};
    int rc = len == 0 ? aw_fail(&err, AW_EINVAL, "empty text (Over or Skip say nothing)")
             : mode == AW_VALIDATE_OFF ? 0 : aw_protocol_validate(text, len, mode, &err);
    aw_buf_printf(b, "{\"type\":\"check\",\"ok\":%s", rc == 0 ? "true" : "false");
    if (rc != 0) {
        aw_buf_adds(b, ",\"error\":");
        aw_buf_add_json(b, err.msg, strnlen(err.msg, sizeof err.msg));
        aw_buf_printf(b, ",\"col\":%ld", err.col);
    }
    aw_buf_addc(b, '}');
}

static void get_check(void *ud, const aw_web_request *req, aw_web_response *res)
{
    (void)ud;
    size_t ml = 0, tl = 0;
    const char *m = query_value(req->query, "mode", false, &ml);
    const char *t = query_value(req->query, "text", true, &tl);
    aw_validation mode = AW_VALIDATE_STRICT;
    res->type = AW_WEB_JSON;
    if (!t || (m && parse_mode(m, ml, &mode) < 0)) {
        res->status = 400;
        aw_buf_adds(&res->body, "{\"error\":\"give mode=strict|lenient|off (optional) and then text=...\"}");
        return;
    }
    check_json(t, tl, mode, &res->body);
}

/* ---- games --------------------------------------------------------------- */

/* The event kind of a line the game log wrote ("event":"KIND" comes
 * within its first fields), for pacing. */
static bool line_is(const char *line, size_t len, const char *kind)
{
    char want[32];
    int k = snprintf(want, sizeof want, "\"event\":\"%s\"", kind);
    size_t scan = len < 64 ? len : 64;
    for (size_t i = 0; i + (size_t)k <= scan; i++)
        if (memcmp(line + i, want, (size_t)k) == 0)
            return true;
    return false;
}

/* --pace: waits pace_ms after a public line of a running game (not its
 * calls, nor the record sent again after the result), unless stopped. */
static void pace(aw_live *l, aw_live_game *g, const char *line, size_t len)
{
    if (l->pace_ms <= 0 || g->over)
        return;
    if (line_is(line, len, "result")) {
        g->over = true;
        return;
    }
    if (line_is(line, len, "call") || line_is(line, len, "version") || line_is(line, len, "begin"))
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += l->pace_ms / 1000;
    ts.tv_nsec += (long)(l->pace_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&l->pace_mu);
    while (!l->pace_stopped && pthread_cond_timedwait(&l->pace_cv, &l->pace_mu, &ts) == 0) {
    }
    pthread_mutex_unlock(&l->pace_mu);
}

static void spectate_sink(void *ud, const char *line, size_t len)
{
    aw_live_game *g = ud;
    if (len && line[len - 1] == '\n')
        len--;
    /* talks and whispers carry their sentences (en, ja), as the viewer's */
    aw_buf_clear(&g->said);
    if (len && line[len - 1] == '}' && aw_view_event_said(line, len, &g->said)) {
        aw_buf with;
        aw_buf_init(&with);
        aw_buf_add(&with, line, len - 1);
        aw_buf_add(&with, g->said.data, g->said.len);
        aw_buf_addc(&with, '}');
        aw_web_publish(g->chan, with.data, with.len);
        aw_buf_free(&with);
    } else {
        aw_web_publish(g->chan, line, len);
    }
    pace(g->l, g, line, len);
}

void aw_live_set_pace(aw_live *l, int ms)
{
    l->pace_ms = ms;
}

void aw_live_stop_pace(aw_live *l)
{
    pthread_mutex_lock(&l->pace_mu);
    l->pace_stopped = true;
    pthread_cond_broadcast(&l->pace_cv);
    pthread_mutex_unlock(&l->pace_mu);
}

aw_live_game *aw_live_game_begin(aw_live *l, aw_gamelog *log, const char *name)
{
    aw_live_game *g = aw_xcalloc(1, sizeof *g);
    g->l = l;
    snprintf(g->name, sizeof g->name, "%s", name ? name : "game");
    g->started = time(NULL);
    g->state = RUNNING;
    pthread_mutex_lock(&l->mu);
    g->id = ++l->next_id;
    pthread_mutex_unlock(&l->mu);
    char path[64];
    snprintf(path, sizeof path, "/ws/game/%d", g->id);
    g->chan = aw_web_channel(l->w, path);
    aw_web_chan_backlog(g->chan, GAME_BACKLOG);
    g->sp = aw_spectate_new(l->reveal, spectate_sink, g);
    aw_spectate_attach(g->sp, log);
    pthread_mutex_lock(&l->mu);
    g->next = l->games;
    l->games = g;
    pthread_mutex_unlock(&l->mu);
    return g;
}

void aw_live_game_end(aw_live *l, aw_live_game *g, bool finished)
{
    if (!g)
        return;
    aw_spectate_flush(g->sp); /* an abandoned game's public lines held at dawn */
    aw_spectate_free(g->sp);
    g->sp = NULL;
    aw_buf_free(&g->said);
    if (!finished) {
        static const char note[] = "{\"event\":\"abandoned\"}";
        aw_web_publish(g->chan, note, sizeof note - 1);
    }
    aw_live_game *drop = NULL;
    pthread_mutex_lock(&l->mu);
    g->state = finished ? FINISHED : ABANDONED;
    /* Only the newest finished games stay listed. */
    int kept = 0;
    for (aw_live_game **p = &l->games; *p;) {
        if ((*p)->state != RUNNING && ++kept > KEEP_FINISHED) {
            aw_live_game *x = *p;
            *p = x->next;
            x->next = drop;
            drop = x;
        } else {
            p = &(*p)->next;
        }
    }
    pthread_mutex_unlock(&l->mu);
    while (drop) {
        aw_live_game *x = drop;
        drop = x->next;
        aw_web_chan_close(x->chan);
        free(x);
    }
}

int aw_live_game_id(const aw_live_game *g)
{
    return g->id;
}

/* ---- human seats --------------------------------------------------------- */

static void human_publish(void *ud, const char *json, size_t len)
{
    live_human *lh = ud;
    aw_web_publish(lh->chan, json, len);
}

static bool human_access(void *ud, const char *query)
{
    return token_in(ud, query);
}

typedef struct join_to {
    aw_web_chan *c;
    uint64_t client;
} join_to;

static void join_send(void *ud, const char *json, size_t len)
{
    join_to *j = ud;
    aw_web_send(j->c, j->client, json, len);
}

/* A page joins: it gets the view of the request under way (with the time
 * left now), sent under the seat's lock: a view the game publishes
 * meanwhile comes after it, never before (the page shows the last view it
 * got). */
static void human_join(void *ud, aw_web_chan *c, uint64_t client, bool joined)
{
    live_human *lh = ud;
    if (!joined)
        return;
    join_to j = {c, client};
    const char *tok = aw_human_token(lh->h);
    aw_human_view_to(lh->h, tok, strlen(tok), join_send, &j, NULL);
}

/* "answer SEQ target N", "answer SEQ text TEXT", "answer SEQ confirm" (the
 * night step) or "check TEXT". */
static void human_message(void *ud, aw_web_chan *c, uint64_t client, const char *msg, size_t len)
{
    live_human *lh = ud;
    aw_buf b;
    aw_buf_init(&b);
    if (len > 6 && strncmp(msg, "check ", 6) == 0) {
        /* under the mode of the view: strict unless it says otherwise */
        aw_validation mode = AW_VALIDATE_STRICT;
        aw_buf v;
        aw_buf_init(&v);
        const char *tok = aw_human_token(lh->h);
        if (aw_human_view(lh->h, tok, strlen(tok), &v, NULL) == 0 && v.data) {
            if (strstr(v.data, "\"validation\":\"lenient\""))
                mode = AW_VALIDATE_LENIENT;
            else if (strstr(v.data, "\"validation\":\"off\""))
                mode = AW_VALIDATE_OFF;
        }
        aw_buf_free(&v);
        check_json(msg + 6, len - 6, mode, &b);
    } else if (len > 7 && strncmp(msg, "answer ", 7) == 0) {
        char *end;
        unsigned long long seq = strtoull(msg + 7, &end, 10);
        aw_error err = {"", 0, 0};
        const char *tok = aw_human_token(lh->h);
        int rc;
        if (strncmp(end, " target ", 8) == 0) {
            char *e2;
            long t = strtol(end + 8, &e2, 10);
            rc = e2 == end + 8 || *e2 || t < 0 || t > AW_MAX_PLAYERS
                     ? aw_fail(&err, AW_EINVAL, "bad target: give an agent's number")
                     : aw_human_answer(lh->h, tok, strlen(tok), seq, NULL, 0, (int)t, &err);
        } else if (strcmp(end, " confirm") == 0 && (size_t)(end + 8 - msg) == len) {
            rc = aw_human_answer(lh->h, tok, strlen(tok), seq, NULL, 0, AW_NO_AGENT, &err);
        } else if (strncmp(end, " text ", 6) == 0) {
            const char *t = end + 6;
            rc = aw_human_answer(lh->h, tok, strlen(tok), seq, t, len - (size_t)(t - msg), 0, &err);
        } else {
            rc = aw_fail(&err, AW_EINVAL, "expected: answer SEQ target N, answer SEQ text TEXT, or answer SEQ confirm");
        }
        aw_buf_printf(&b, "{\"type\":\"%s\",\"seq\":%llu", rc == 0 ? "taken" : "refused", seq);
        if (rc != 0) {
            aw_buf_adds(&b, ",\"error\":");
            aw_buf_add_json(&b, err.msg, strnlen(err.msg, sizeof err.msg));
        }
        aw_buf_addc(&b, '}');
    } else {
        aw_buf_adds(&b, "{\"type\":\"refused\",\"error\":\"expected: answer SEQ target N, answer SEQ text TEXT, "
                        "or check TEXT\"}");
    }
    aw_web_send(c, client, b.data, b.len);
    aw_buf_free(&b);
}

aw_seat *aw_live_human(aw_live *l, int seat, const char *name, uint64_t timeout_ms, aw_error *err)
{
    if (seat < 1 || seat > AW_MAX_PLAYERS || l->humans[seat]) {
        aw_fail(err, AW_EINVAL, "seat %d cannot be a human seat", seat);
        return NULL;
    }
    live_human *lh = aw_xcalloc(1, sizeof *lh);
    lh->l = l;
    lh->seat = seat;
    snprintf(lh->name, sizeof lh->name, "%s", name ? name : "human");
    aw_human_opts ho = {lh->name, timeout_ms, human_publish, lh};
    lh->h = aw_human_new(&ho, err);
    if (!lh->h) {
        free(lh);
        return NULL;
    }
    char path[64];
    snprintf(path, sizeof path, "/ws/human/%d", seat);
    /* guarded from the start: the web already serves, and a client that
     * joined before the check was set would read and answer for the seat */
    lh->chan = aw_web_channel_guarded(l->w, path, human_access, lh);
    aw_web_on_join(lh->chan, human_join, lh);
    aw_web_on_message(lh->chan, human_message, lh);
    pthread_mutex_lock(&l->mu);
    l->humans[seat] = lh;
    pthread_mutex_unlock(&l->mu);
    return lh->h;
}

typedef struct borrowed {
    aw_seat base;
    aw_seat *inner;
} borrowed;

static const char *b_begin(aw_seat *s, int agent, uint64_t seed, aw_seat_fault *f)
{
    aw_seat *in = ((borrowed *)s)->inner;
    return in->ops->begin(in, agent, seed, f);
}

static int b_request(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set, aw_seat_reply *reply,
                     aw_seat_fault *f)
{
    aw_seat *in = ((borrowed *)s)->inner;
    return in->ops->request(in, kind, info, set, reply, f);
}

static int b_wait(aw_seat *s, aw_seat_reply *reply, aw_seat_fault *f)
{
    aw_seat *in = ((borrowed *)s)->inner;
    return in->ops->wait(in, reply, f);
}

static void b_free(aw_seat *s)
{
    free(s);
}

static const aw_seat_ops borrowed_ops = {.begin = b_begin, .request = b_request, .free = b_free, .wait = b_wait};

aw_seat *aw_live_human_borrow(aw_seat *h)
{
    borrowed *b = aw_xcalloc(1, sizeof *b);
    b->base.ops = &borrowed_ops;
    b->inner = h;
    return &b->base;
}

int aw_live_human_take(aw_seat *s, aw_seat_reply *reply, aw_seat_fault *fault, uint64_t *deadline)
{
    if (s->ops == &borrowed_ops)
        s = ((borrowed *)s)->inner;
    return aw_human_take(s, reply, fault, deadline);
}

void aw_live_human_on_ready(aw_seat *s, void (*fn)(void *ud), void *ud)
{
    if (s->ops == &borrowed_ops)
        s = ((borrowed *)s)->inner;
    aw_human_on_ready(s, fn, ud);
}

/* ---- the whole ----------------------------------------------------------- */

aw_live *aw_live_new(aw_web *w, bool reveal)
{
    aw_live *l = aw_xcalloc(1, sizeof *l);
    l->w = w;
    l->reveal = reveal;
    pthread_mutex_init(&l->mu, NULL);
    pthread_mutex_init(&l->pace_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->pace_cv, &ca);
    pthread_condattr_destroy(&ca);
    aw_web_serve_pages(w);
    aw_web_route(w, "/", get_asset, l);
    aw_web_route(w, "/live/", get_asset, l);
    aw_web_route(w, "/live.js", get_asset, l);
    aw_web_route(w, "/live.css", get_asset, l);
    aw_web_route(w, "/human.js", get_asset, l);
    aw_web_route(w, "/human/", get_human, l);
    aw_web_route(w, "/api/games", get_games, l);
    aw_web_route(w, "/api/check", get_check, l);
    return l;
}

void aw_live_print_urls(aw_live *l, FILE *out, const char *host, int port)
{
    fprintf(out, "aiwolf: watch the games at http://%s:%d/%s\n", host, port,
            l->reveal ? " (--reveal: roles and night actions are shown)" : "");
    for (int a = 1; a <= AW_MAX_PLAYERS; a++)
        if (l->humans[a])
            fprintf(out, "aiwolf: play human seat %d at http://%s:%d/human/%d?token=%s\n", a, host, port, a,
                    aw_human_token(l->humans[a]->h));
    fflush(out);
}

void aw_live_free(aw_live *l)
{
    if (!l)
        return;
    while (l->games) {
        aw_live_game *g = l->games;
        l->games = g->next;
        aw_spectate_free(g->sp);
        aw_buf_free(&g->said);
        free(g);
    }
    for (int a = 1; a <= AW_MAX_PLAYERS; a++)
        if (l->humans[a]) {
            l->humans[a]->h->ops->free(l->humans[a]->h);
            free(l->humans[a]);
        }
    pthread_mutex_destroy(&l->mu);
    pthread_mutex_destroy(&l->pace_mu);
    pthread_cond_destroy(&l->pace_cv);
    free(l);
}
