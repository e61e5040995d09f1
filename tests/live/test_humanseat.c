/* The human seat (humanseat.h): its token guards its view and its answers;
 * a whole game with a person (a thread here) in seat 1 — who first sends
 * wrong answers (bad protocol text, no agent, a stale request, the wrong
 * token) and gets each refused with a message, then answers, or lets some
 * requests run out of time — ends with a legal log, with the person's
 * answers in it, time-outs as faults with the rules' substitutes, and
 * views that hold exactly what the seat's role may know.
 *
 * The seats' deadlines run on a clock of the test's own (aw_human_set_clock),
 * which moves only when the person lets a request run out: which requests
 * time out, and so every count checked, is the same however loaded the
 * machine is. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cseat.h"
#include "game.h"
#include "humanseat.h"
#include "logcheck.h"
#include "person_game.h"
#include "talkhooks.h"
#include "test.h"

/* A clock that moves only when told (aw_human_set_clock). */
static uint64_t fake_now(void *ud)
{
    return atomic_load((_Atomic uint64_t *)ud);
}

#define PERSON_TIMEOUT_MS 10 /* of the fake clock; also how often the game re-reads it */

typedef struct person {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    _Atomic uint64_t clock; /* the seat's clock (fake_now) */
    char **views;     /* every view published, in order (the person reads each) */
    size_t nviews, cap;
    int answered_notes, timeout_notes;
    bool over;
    aw_seat *seat;
    int nread, text_refused, target_refused, stale_refused, token_refused, texts, targets, skipped;
    int bad_fields; /* views that show more than the role may know */
    int confirms;   /* night steps confirmed */
    int night_refused; /* a text or an agent given for the night step, refused */
    uint64_t night_seq; /* the latest night step's seq */
    int night_timeouts; /* night steps that ran out (no fault: nothing shows them) */
} person;

static void publish(void *ud, const char *json, size_t len)
{
    person *p = ud;
    CHECK(len > 2 && json[0] == '{' && json[len - 1] == '}');
    pthread_mutex_lock(&p->mu);
    if (strstr(json, "\"type\":\"view\"")) {
        if (p->nviews == p->cap) {
            p->cap = p->cap ? 2 * p->cap : 64;
            p->views = aw_xrealloc(p->views, p->cap * sizeof *p->views);
        }
        p->views[p->nviews++] = aw_xstrndup(json, len);
        if (strstr(json, "\"answer\":\"confirm\""))
            p->night_seq = (uint64_t)strtoull(strstr(json, "\"seq\":") + 6, NULL, 10);
        pthread_cond_broadcast(&p->cv);
    } else if (strstr(json, "\"type\":\"answered\"")) {
        p->answered_notes++;
    } else if (strstr(json, "\"type\":\"timeout\"")) {
        p->timeout_notes++;
        /* the seat's own word that a night step ran out */
        p->night_timeouts += (uint64_t)strtoull(strstr(json, "\"seq\":") + 6, NULL, 10) == p->night_seq;
    }
    pthread_mutex_unlock(&p->mu);
}

static void *person_main(void *arg)
{
    person *p = arg;
    const char *tok = aw_human_token(p->seat);
    size_t next = 0;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (p->nviews == next && !p->over)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->over && p->nviews == next) {
            pthread_mutex_unlock(&p->mu);
            break;
        }
        const char *j = p->views[next++]; /* stays: only publish appends, and it moves only the array */
        pthread_mutex_unlock(&p->mu);
        p->nread++;
        /* What the role may know. */
        const char *role = strstr(j, "\"myRole\":\"");
        bool wolf = role && strncmp(role + 10, "WEREWOLF", 8) == 0;
        bool finish = strstr(j, "\"request\":\"FINISH\"") != NULL;
        if ((strstr(j, "\"whispers\":") || strstr(j, "\"attackVotes\":")) && !wolf)
            p->bad_fields++;
        if (strstr(j, "\"divineResult\":") && !(role && strncmp(role + 10, "SEER", 4) == 0))
            p->bad_fields++;
        if (!finish && !wolf) { /* a villager knows one role: its own */
            const char *r = strstr(j, "\"roles\":{");
            if (!r || strchr(r + 9, ':') > strchr(r + 9, '}'))
                p->bad_fields++;
            else if (strchr(strchr(r + 9, ':') + 1, ':') < strchr(r + 9, '}'))
                p->bad_fields++;
        }
        uint64_t seq = (uint64_t)field(j, "\"seq\":");
        int me = (int)field(j, "\"agent\":");
        aw_error err;
        if (strstr(j, "\"answer\":\"none\""))
            continue;
        /* A wrong token is refused first, whatever else. */
        if (aw_human_answer(p->seat, "0123456789abcdef0123456789abcdef", 32, seq, "Over", 4, 2, &err) < 0 &&
            strstr(err.msg, "token"))
            p->token_refused++;
        if (aw_human_answer(p->seat, NULL, 0, seq, "Over", 4, 2, &err) < 0)
            p->token_refused++;
        /* Every seventh request runs out of time: the person lets the
         * clock pass its deadline (the only request waiting: the next is
         * asked only once this one ends). */
        if (seq % 7 == 3) {
            p->skipped++;
            atomic_fetch_add(&p->clock, (uint64_t)(PERSON_TIMEOUT_MS + 1) * 1000000u);
            continue;
        }
        if (aw_human_answer(p->seat, tok, strlen(tok), seq + 1, "Over", 4, 2, &err) == -AW_ESTATE)
            p->stale_refused++;
        if (strstr(j, "\"answer\":\"confirm\"")) { /* the night step: a confirmation, nothing else */
            CHECK(strstr(j, "\"request\":\"NIGHT\"") != NULL);
            if (aw_human_answer(p->seat, tok, strlen(tok), seq, "Over", 4, 0, &err) == -AW_EINVAL &&
                aw_human_answer(p->seat, tok, strlen(tok), seq, NULL, 0, alive_other(j, me), &err) == -AW_EINVAL)
                p->night_refused++;
            int rc = aw_human_answer(p->seat, tok, strlen(tok), seq, NULL, 0, AW_NO_AGENT, &err);
            CHECK_MSG(rc == 0, "confirm: %s", err.msg);
            p->confirms += rc == 0;
        } else if (strstr(j, "\"answer\":\"text\"")) {
            if (aw_human_answer(p->seat, tok, strlen(tok), seq, "VOTE Agent[", 11, 0, &err) < 0 &&
                strstr(err.msg, "at byte"))
                p->text_refused++;
            char text[64];
            int t = alive_other(j, me);
            if (seq % 3 == 0 && t)
                snprintf(text, sizeof text, "%s Agent[%02d]", strstr(j, "\"WHISPER\"") ? "ATTACK" : "VOTE", t);
            else
                snprintf(text, sizeof text, "Over");
            int rc = aw_human_answer(p->seat, tok, strlen(tok), seq, text, strlen(text), 0, &err);
            CHECK_MSG(rc == 0, "%s: %s", text, err.msg);
            p->texts += rc == 0;
        } else {
            if (aw_human_answer(p->seat, tok, strlen(tok), seq, NULL, 0, 0, &err) < 0 && strstr(err.msg, "agent"))
                p->target_refused++;
            int rc = aw_human_answer(p->seat, tok, strlen(tok), seq, NULL, 0, alive_other(j, me), &err);
            CHECK_MSG(rc == 0, "target: %s", err.msg);
            p->targets += rc == 0;
            /* a second answer to the same request is refused */
            CHECK(aw_human_answer(p->seat, tok, strlen(tok), seq, NULL, 0, alive_other(j, me), &err) == -AW_ESTATE);
        }
    }
    return NULL;
}

static int play_one(uint64_t seed, int players, aw_role role, person *p, char **csv_out)
{
    aw_settings set;
    CHECK(aw_settings_preset(&set, "aiwolf", players, NULL) == 0);
    aw_human_opts ho = {"Person", PERSON_TIMEOUT_MS, publish, p};
    aw_error err;
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    seats[1] = aw_human_new(&ho, &err);
    CHECK(seats[1] != NULL);
    aw_human_set_clock(seats[1], fake_now, &p->clock);
    p->seat = seats[1];
    for (int a = 2; a <= players; a++)
        seats[a] = aw_cseat_random(seed * 13 + (uint64_t)a);
    char *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    aw_gamelog log;
    aw_gamelog_init(&log, f, NULL, NULL);
    person_thread pt = {person_main, p, &p->mu, &p->cv, &p->over};
    aw_game_result res;
    int rc = play_with_person(&set, seed, role, &log, seats, &pt, &res, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK_INT(res.role[1], role);
    CHECK(res.seat_faults[1][AW_FAULT_TIMEOUT] > 0); /* the requests let run out */
    /* each time-out a fault, but for the night steps' */
    CHECK_INT(res.seat_faults[1][AW_FAULT_TIMEOUT], p->timeout_notes - p->night_timeouts);
    aw_gamelog_free(&log);
    fclose(f);
    for (int a = 1; a <= players; a++)
        seats[a]->ops->free(seats[a]);
    *csv_out = csv;
    return rc;
}

/* ---- a driver of its own: the ready callback, the deadline ---------------- */

typedef struct wake {
    int ready;          /* ready() calls */
    int views, notes;
    uint64_t seq;       /* the latest view's */
    bool wants_text;
    _Atomic uint64_t clock; /* the seat's (fake_now) */
} wake;

static void wake_ready(void *ud)
{
    ((wake *)ud)->ready++;
}

static void wake_publish(void *ud, const char *json, size_t len)
{
    wake *w = ud;
    (void)len;
    if (strstr(json, "\"type\":\"view\"")) {
        w->views++;
        w->seq = (uint64_t)field(json, "\"seq\":");
        w->wants_text = strstr(json, "\"answer\":\"text\"") != NULL;
    } else {
        w->notes++;
    }
}

/* A game driven step by step in this thread, as an event loop drives it:
 * each answer the seat takes calls ready() once (a refused one never), the
 * seat reports its deadline while it waits, and after the deadline the
 * take gives the time-out; once the callback is cleared it is not called. */
static void ready_game(void)
{
    aw_settings set;
    CHECK(aw_settings_preset(&set, "aiwolf", 5, NULL) == 0);
    wake w;
    memset(&w, 0, sizeof w);
    atomic_init(&w.clock, 5000000000u);
    aw_human_opts ho = {"Person", 30, wake_publish, &w};
    aw_error err;
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    seats[1] = aw_human_new(&ho, &err);
    aw_human_set_clock(seats[1], fake_now, &w.clock);
    for (int a = 2; a <= 5; a++)
        seats[a] = aw_cseat_random(700 + (uint64_t)a);
    aw_human_on_ready(seats[1], wake_ready, &w);
    const char *tok = aw_human_token(seats[1]);
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = &set;
    go.seed = 77;
    aw_talkhooks_game(&go);
    aw_game *gm = aw_game_start(&go, seats, &err);
    CHECK_MSG(gm != NULL, "%s", err.msg);
    aw_request req;
    int asked = 0, timeouts = 0, cleared_at = -1;
    while (gm && aw_game_next(gm, &req) == 0) {
        for (int i = 0; i < req.nseats; i++) {
            int a = req.seats[i];
            if (aw_game_ask(gm, a) != AW_SEAT_PENDING)
                continue;
            CHECK_INT(a, 1);
            asked++;
            aw_seat_reply reply = {NULL, 0, AW_NO_AGENT};
            aw_seat_fault f = {AW_FAULT_NONE, ""};
            uint64_t deadline = 0, before = atomic_load(&w.clock);
            CHECK_INT(aw_human_take(seats[1], &reply, &f, &deadline), AW_SEAT_PENDING);
            CHECK(deadline == before + 30000000u); /* the timeout from when it was asked */
            CHECK_INT(aw_human_deadline(seats[1]), deadline);
            int ready = w.ready;
            if (asked == 20) { /* from here on, nobody is told */
                aw_human_on_ready(seats[1], NULL, NULL);
                cleared_at = ready;
            }
            int rc;
            if (asked % 4 == 3) { /* runs out: take at the deadline, not before */
                atomic_store(&w.clock, deadline - 1);
                CHECK_INT(aw_human_take(seats[1], &reply, &f, NULL), AW_SEAT_PENDING);
                atomic_store(&w.clock, deadline);
                /* an answer at the deadline is too late */
                CHECK(w.wants_text ? aw_human_answer(seats[1], tok, strlen(tok), w.seq, "Over", 4, 0, &err) < 0
                                   : aw_human_answer(seats[1], tok, strlen(tok), w.seq, NULL, 0, 2, &err) < 0);
                CHECK_MSG(strstr(err.msg, "too late") != NULL, "%s", err.msg);
                rc = aw_human_take(seats[1], &reply, &f, NULL);
                CHECK_INT(rc, -1);
                CHECK_INT(f.kind, AW_FAULT_TIMEOUT);
                CHECK_INT(w.ready, ready); /* a deadline calls nothing */
                timeouts++;
            } else {
                CHECK(aw_human_answer(seats[1], tok, strlen(tok), w.seq + 1, "Over", 4, 2, &err) < 0);
                CHECK_INT(w.ready, ready); /* refused: nothing to take */
                CHECK(w.wants_text ? aw_human_answer(seats[1], tok, strlen(tok), w.seq, "Over", 4, 0, &err) == 0
                                   : aw_human_answer(seats[1], tok, strlen(tok), w.seq, NULL, 0, 2, &err) == 0);
                CHECK_INT(w.ready, cleared_at >= 0 ? ready : ready + 1);
                rc = aw_human_take(seats[1], &reply, &f, NULL);
                CHECK_INT(rc, 0);
            }
            aw_game_answer(gm, a, rc, rc == 0 ? &reply : NULL, &f);
        }
    }
    aw_game_result res;
    if (gm)
        aw_game_end(gm, &res);
    CHECK(asked > 20);
    CHECK(timeouts > 0);
    CHECK_INT(res.seat_faults[1][AW_FAULT_TIMEOUT], timeouts);
    CHECK_INT(w.ready, cleared_at);
    CHECK_INT(w.notes, asked); /* an "answered" or "timeout" per request */
    for (int a = 1; a <= 5; a++)
        seats[a]->ops->free(seats[a]);
}

/* ---- a page that joins while the game moves on --------------------------- */

/* One client's queue, as the web's channel keeps it: what the seat
 * publishes and the view a page gets when it joins, in the order they are
 * queued. A view given on joining must never be older than one published
 * before it. */
typedef struct queue {
    pthread_mutex_t mu;
    uint64_t last_published;
    long joins, stale;
    bool over;
    aw_seat *seat;
} queue;

static void queue_publish(void *ud, const char *json, size_t len)
{
    queue *q = ud;
    (void)len;
    if (!strstr(json, "\"type\":\"view\""))
        return;
    pthread_mutex_lock(&q->mu);
    q->last_published = (uint64_t)field(json, "\"seq\":");
    pthread_mutex_unlock(&q->mu);
}

static void queue_join(void *ud, const char *json, size_t len)
{
    queue *q = ud;
    (void)len;
    uint64_t seq = (uint64_t)field(json, "\"seq\":");
    pthread_mutex_lock(&q->mu);
    q->joins++;
    if (seq < q->last_published)
        q->stale++;
    pthread_mutex_unlock(&q->mu);
}

static void *joiner(void *arg)
{
    queue *q = arg;
    const char *tok = aw_human_token(q->seat);
    for (;;) {
        pthread_mutex_lock(&q->mu);
        bool over = q->over;
        pthread_mutex_unlock(&q->mu);
        if (over)
            break;
        aw_human_view_to(q->seat, tok, strlen(tok), queue_join, q, NULL);
    }
    return NULL;
}

static void join_order(void)
{
    queue q;
    memset(&q, 0, sizeof q);
    pthread_mutex_init(&q.mu, NULL);
    aw_settings set;
    CHECK(aw_settings_preset(&set, "aiwolf", 15, NULL) == 0);
    aw_human_opts ho = {"Person", 1, queue_publish, &q}; /* nobody answers: 1 ms each */
    aw_error err;
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    q.seat = seats[1] = aw_human_new(&ho, &err);
    for (int a = 2; a <= 15; a++)
        seats[a] = aw_cseat_random(900 + (uint64_t)a);
    pthread_t th;
    pthread_create(&th, NULL, joiner, &q);
    /* At least four games, and until the page has joined often enough
     * (however little the machine gives its thread); 1000 games would
     * mean it never joins. */
    long joins = 0;
    for (int g = 0; g < 1000 && (g < 4 || joins <= 100); g++) {
        aw_game_opts go;
        memset(&go, 0, sizeof go);
        go.settings = &set;
        go.seed = 300 + (uint64_t)g;
        aw_talkhooks_game(&go);
        aw_game_result res;
        CHECK(aw_game_play(&go, seats, &res, &err) == 0);
        pthread_mutex_lock(&q.mu);
        joins = q.joins;
        pthread_mutex_unlock(&q.mu);
    }
    pthread_mutex_lock(&q.mu);
    q.over = true;
    pthread_mutex_unlock(&q.mu);
    pthread_join(th, NULL);
    CHECK(q.joins > 100);
    CHECK_INT(q.stale, 0);
    for (int a = 1; a <= 15; a++)
        seats[a]->ops->free(seats[a]);
    pthread_mutex_destroy(&q.mu);
}

int main(void)
{
    ready_game();
    join_order();

    aw_error err;
    aw_human_opts ho = {NULL, 1000, NULL, NULL};
    aw_seat *a = aw_human_new(&ho, &err), *b = aw_human_new(&ho, &err);
    const char *ta = aw_human_token(a), *tb = aw_human_token(b);
    CHECK_INT(strlen(ta), AW_HUMAN_TOKEN_LEN);
    CHECK(strspn(ta, "0123456789abcdef") == AW_HUMAN_TOKEN_LEN);
    CHECK(strcmp(ta, tb) != 0);
    CHECK(aw_human_token_ok(a, ta, strlen(ta)));
    CHECK(!aw_human_token_ok(a, tb, strlen(tb)));
    CHECK(!aw_human_token_ok(a, ta, strlen(ta) - 1));
    CHECK(!aw_human_token_ok(a, NULL, 0));
    aw_buf out;
    aw_buf_init(&out);
    CHECK_INT(aw_human_view(a, tb, strlen(tb), &out, &err), -AW_EINVAL);
    CHECK_INT(out.len, 0);
    CHECK_INT(aw_human_view(a, ta, strlen(ta), &out, &err), -AW_ESTATE); /* nothing asked yet */
    CHECK_INT(aw_human_answer(a, ta, strlen(ta), 1, "Over", 4, 0, &err), -AW_ESTATE);
    CHECK(strstr(err.msg, "not waiting") != NULL);
    a->ops->free(a);
    b->ops->free(b);

    const aw_role roles[] = {AW_VILLAGER, AW_WEREWOLF, AW_SEER, AW_BODYGUARD, AW_MEDIUM, AW_POSSESSED};
    int games = 0, confirms = 0, night_timeouts = 0;
    for (int i = 0; i < 6; i++) {
        person p;
        memset(&p, 0, sizeof p);
        pthread_mutex_init(&p.mu, NULL);
        pthread_cond_init(&p.cv, NULL);
        atomic_init(&p.clock, 1000000000u);
        char *csv;
        int players = i < 3 ? 5 : 15;
        play_one(100 + (uint64_t)i, players, roles[i], &p, &csv);
        aw_settings set;
        aw_settings_preset(&set, "aiwolf", players, NULL);
        aw_logcheck_report rep;
        aw_logcheck(csv, strlen(csv), &set, NULL, &rep, &err);
        CHECK_MSG(rep.verdict == AW_LOG_LEGAL, "%s: line %ld: %s", aw_role_name(roles[i]), rep.line, rep.reason);
        /* the person's own words are in the log */
        CHECK(strstr(csv, ",1,Over") || strstr(csv, ",1,VOTE Agent["));
        CHECK(p.nread > 3);
        CHECK_INT(p.bad_fields, 0);
        CHECK(p.token_refused >= 2);
        CHECK(p.stale_refused > 0);
        CHECK(p.texts + p.targets > 0);
        CHECK_INT(p.answered_notes, p.texts + p.targets + p.confirms);
        CHECK(p.night_refused >= p.confirms);
        confirms += p.confirms;
        night_timeouts += p.night_timeouts;
        CHECK_INT(p.timeout_notes, p.skipped);
        if (p.texts)
            CHECK(p.text_refused > 0);
        if (p.targets)
            CHECK(p.target_refused > 0);
        games++;
        free(csv);
        for (size_t v = 0; v < p.nviews; v++)
            free(p.views[v]);
        free(p.views);
        pthread_mutex_destroy(&p.mu);
        pthread_cond_destroy(&p.cv);
    }
    CHECK_INT(games, 6);
    CHECK(confirms > 0);       /* night steps came and were confirmed */
    CHECK(night_timeouts > 0); /* and some ran out */
    aw_buf_free(&out);
    return test_done();
}
