/* The TCP server's loop sleeps while a person thinks (netserver.h's
 * local_watch and local_take): a human seat (humanseat.h) in a game of
 * local seats that answer at once, so the loop has nothing else to do. The
 * person waits a second before the first answer: meanwhile the server asks
 * the seat at most twice (a loop polling every 50 ms would ask about 20
 * times); the answer is taken before its deadline (woken, not found at
 * the deadline). The person lets the second request run out: the rules'
 * substitute comes at the deadline, which the server wakes itself for,
 * asked a few times at most. Then the person answers everything at once:
 * every answer is taken before its deadline, and the seat is asked about
 * twice per request in all. The seat is on the test's clock
 * (human_clock.h): its timeout of a minute only guards against a hang, and
 * the request that runs out does so because the test moves the seat's clock
 * on, so which request times out does not depend on the machine's load. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cseat.h"
#include "humanseat.h"
#include "live.h"
#include "netserver.h"
#include "test.h"
#include "local_serve.h"
#include "human_clock.h"

#define TIMEOUT_MS 60000 /* the person's time per request: a hang guard */
#define LEFT_NS 100000000u /* real time left to the request let run out */

typedef struct ctx {
    aw_seat *human;
    human_clock clock;    /* the seat's */
    int published_asks;   /* views that ask for an answer (publish's count) */
    aw_seat *lent; /* the seat lent for it in the game under way */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    aw_buf view;          /* the latest view */
    uint64_t seen;        /* views so far */
    uint64_t answered_seq, timeout_seq; /* the latest notes' */
    bool done;
    /* the loop's side (under mu) */
    int takes;            /* local_take calls */
    int pending_takes;    /* ... that found no answer yet */
    int late;             /* answers taken at or after their deadline */
    uint64_t deadline;    /* the deadline reported for the request waiting, or 0 */
    uint64_t answer_ns;   /* when the person gave the latest answer */
    uint64_t worst_ns;    /* the longest from an answer to its take */
    int watched, unwatched;
    int requests, answered, timeouts, asked;
    int cur_takes;        /* calls for the request waiting */
    int first_takes, timeout_takes, most_takes; /* calls for a request */
} ctx;

static void publish(void *ud, const char *json, size_t len)
{
    ctx *c = ud;
    const char *q = strstr(json, "\"seq\":");
    uint64_t seq = q ? strtoull(q + 6, NULL, 10) : 0;
    pthread_mutex_lock(&c->mu);
    if (strstr(json, "\"type\":\"view\"")) {
        /* The second request that asks runs out (see the top). */
        if (!strstr(json, "\"answer\":\"none\"") && ++c->published_asks == 2)
            human_clock_expire(&c->clock, LEFT_NS);
        aw_buf_clear(&c->view);
        aw_buf_add(&c->view, json, len);
        c->seen++;
    } else if (strstr(json, "\"type\":\"answered\"")) {
        c->answered_seq = seq;
    } else if (strstr(json, "\"type\":\"timeout\"")) {
        c->timeout_seq = seq;
    }
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}


static aw_seat *make_local(void *ud, int agent, aw_error *err)
{
    ctx *c = ud;
    (void)err;
    if (agent == 3) {
        /* The server frees its seats after each game: the human seat stays
         * (what serve --human lends, live.h). */
        c->lent = aw_live_human_borrow(c->human);
        return c->lent;
    }
    return aw_cseat_random(500 + (uint64_t)agent);
}

static int take(void *ud, aw_seat *seat, aw_seat_reply *reply, aw_seat_fault *f, uint64_t *deadline)
{
    ctx *c = ud;
    CHECK(seat == c->lent);
    int rc = aw_human_take(c->human, reply, f, deadline);
    uint64_t now = human_clock_now(&c->clock);
    pthread_mutex_lock(&c->mu);
    c->takes++;
    c->cur_takes++;
    if (rc == AW_SEAT_PENDING) {
        CHECK(*deadline > now);
        CHECK(!c->deadline || c->deadline == *deadline);
        c->deadline = *deadline;
        c->pending_takes++;
        *deadline = human_clock_real(&c->clock, *deadline); /* the server's clock */
    } else {
        c->requests++;
        if (c->requests == 1)
            c->first_takes = c->cur_takes;
        if (rc != 0)
            c->timeout_takes = c->cur_takes;
        if (c->cur_takes > c->most_takes)
            c->most_takes = c->cur_takes;
        c->cur_takes = 0;
        if (rc == 0) {
            c->answered++;
            if (c->deadline && now >= c->deadline) /* (0: there at the first take) */
                c->late++;
            if (now - c->answer_ns > c->worst_ns)
                c->worst_ns = now - c->answer_ns;
        } else {
            CHECK_INT(f->kind, AW_FAULT_TIMEOUT);
            CHECK(c->deadline && now >= c->deadline);
            c->timeouts++;
        }
        c->deadline = 0;
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

static void watch(void *ud, aw_seat *seat, void (*ready)(void *), void *ready_ud)
{
    ctx *c = ud;
    CHECK(seat == c->lent);
    if (ready)
        c->watched++;
    else
        c->unwatched++;
    aw_human_on_ready(c->human, ready, ready_ud);
}

static int after(void *ud, long gno, aw_gamelog *log, bool finished)
{
    (void)ud;
    (void)gno;
    (void)log;
    CHECK(finished);
    return 0;
}

/* Waits (up to 30 s) until *what becomes seq. */
static bool wait_note(ctx *c, uint64_t *what, uint64_t seq)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 30;
    pthread_mutex_lock(&c->mu);
    while (*what != seq && pthread_cond_timedwait(&c->cv, &c->mu, &ts) == 0) {
    }
    bool ok = *what == seq;
    pthread_mutex_unlock(&c->mu);
    return ok;
}

static int other_alive(const char *v)
{
    const char *al = strstr(v, "\"alive\":[");
    int me = atoi(strstr(v, "\"agent\":") + 8);
    for (const char *p = al ? al + 9 : ""; *p && *p != ']';) {
        int a = (int)strtol(p, (char **)&p, 10);
        if (a != me)
            return a;
        if (*p == ',')
            p++;
    }
    return 0;
}

static void *person(void *arg)
{
    ctx *c = arg;
    uint64_t last = 0;
    int asked = 0;
    const char *tok = aw_human_token(c->human);
    for (;;) {
        pthread_mutex_lock(&c->mu);
        while (c->seen == last && !c->done)
            pthread_cond_wait(&c->cv, &c->mu);
        if (c->seen == last) {
            pthread_mutex_unlock(&c->mu);
            break;
        }
        last = c->seen;
        char *v = strdup(c->view.data);
        pthread_mutex_unlock(&c->mu);
        uint64_t seq = strtoull(strstr(v, "\"seq\":") + 6, NULL, 10);
        if (strstr(v, "\"answer\":\"none\"")) {
            free(v);
            continue;
        }
        asked++;
        pthread_mutex_lock(&c->mu);
        c->asked = asked;
        pthread_mutex_unlock(&c->mu);
        if (asked == 1) { /* a second to think: the loop has nothing to do */
            struct timespec ts = {1, 0};
            nanosleep(&ts, NULL);
        } else if (asked == 2) { /* no answer: the deadline passes */
            CHECK_MSG(wait_note(c, &c->timeout_seq, seq), "no time-out for request %llu", (unsigned long long)seq);
            free(v);
            continue;
        }
        pthread_mutex_lock(&c->mu);
        c->answer_ns = human_clock_now(&c->clock);
        pthread_mutex_unlock(&c->mu);
        aw_error err;
        int rc = strstr(v, "\"answer\":\"text\"") ? aw_human_answer(c->human, tok, strlen(tok), seq, "Over", 4, 0, &err)
                                                : aw_human_answer(c->human, tok, strlen(tok), seq, NULL, 0,
                                                                  strstr(v, "\"answer\":\"confirm\"")
                                                                      ? AW_NO_AGENT
                                                                      : other_alive(v),
                                                                  &err);
        CHECK_MSG(rc == 0, "%s", err.msg);
        if (asked == 1)
            CHECK_MSG(wait_note(c, &c->answered_seq, seq), "request %llu: the answer was not taken",
                      (unsigned long long)seq);
        free(v);
    }
    return NULL;
}

int main(void)
{
    ctx c;
    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.mu, NULL);
    pthread_cond_init(&c.cv, NULL);
    aw_buf_init(&c.view);
    aw_error err;
    aw_human_opts ho = {"Person", TIMEOUT_MS, publish, &c};
    c.human = aw_human_new(&ho, &err);
    human_clock_use(&c.clock, c.human, TIMEOUT_MS);
    aw_settings set;
    aw_netserver_opts no;
    local_serve_opts(&no, &set, 7, 1, 1, &c);
    no.make_local = make_local;
    no.local_take = take;
    no.local_watch = watch;
    no.after = after;
    pthread_t th;
    pthread_create(&th, NULL, person, &c);
    aw_tally tally;
    aw_tally_init(&tally, 2);
    int rc = aw_netserver_run(&no, &tally, &err);
    pthread_mutex_lock(&c.mu);
    c.done = true;
    pthread_cond_broadcast(&c.cv);
    pthread_mutex_unlock(&c.mu);
    pthread_join(th, NULL);
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK_INT(tally.st.games, 1);
    printf("requests %d: answered %d, timed out %d; local_take calls %d (%d found no answer); "
           "for the request answered after 1 s %d, for the one timed out %d, at most %d; "
           "slowest answer taken %.3f ms after it was given\n",
           c.requests, c.answered, c.timeouts, c.takes, c.pending_takes, c.first_takes, c.timeout_takes,
           c.most_takes, (double)c.worst_ns / 1e6);
    CHECK(c.requests > 5);
    CHECK_INT(c.requests, c.asked);
    CHECK_INT(c.watched, 1);   /* once per game, when the seat first answers later */
    CHECK_INT(c.unwatched, 1); /* cleared before the seat is freed */
    /* The request answered after a second of nothing to do: asked when it
     * came, and once more when the answer came (polling every 50 ms: about
     * 20 times). */
    CHECK_INT(c.first_takes, 2);
    /* The time-out: asked when it came, then at the deadline (once more if
     * the loop's clock fires a trifle early). */
    CHECK_INT(c.timeouts, 1);
    CHECK_MSG(c.timeout_takes >= 2 && c.timeout_takes <= 3, "%d", c.timeout_takes);
    CHECK_MSG(c.most_takes <= 3, "%d", c.most_takes);
    /* Woken by the answer, not finding it at the deadline. */
    CHECK_INT(c.late, 0);
    /* Once when asked, once when woken by the answer; a few spare. */
    CHECK_MSG(c.takes <= 2 * c.requests + 2, "%d takes for %d requests", c.takes, c.requests);
    aw_tally_free(&tally);
    c.human->ops->free(c.human);
    aw_buf_free(&c.view);
    pthread_mutex_destroy(&c.mu);
    pthread_cond_destroy(&c.cv);
    return test_done();
}
