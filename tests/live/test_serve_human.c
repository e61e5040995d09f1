/* The TCP server's loop with a seat that answers later (netserver.h's
 * local_take): a human seat (humanseat.h) in a game of local seats, its
 * person a thread that answers some requests after a while and lets others
 * run out — the seat wakes the server, the other seats play on, and each game
 * ends with a legal log in which the person's answers and time-outs stand.
 * The seat is on the test's clock (human_clock.h): a request runs out
 * because the test says so (every fifth), never because the machine is
 * loaded, so every answer the person gives is taken and every request let
 * go times out. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cseat.h"
#include "humanseat.h"
#include "live.h"
#include "logcheck.h"
#include "netserver.h"
#include "test.h"
#include "local_serve.h"
#include "human_clock.h"

#define TIMEOUT_MS 60000 /* the person's time per request: a hang guard */
#define LEFT_NS 20000000u /* real time left to a request let run out */

typedef struct ctx {
    aw_seat *human;
    human_clock clock;
    aw_seat *lent; /* the seat lent for it in the game under way */
    pthread_mutex_t mu;
    aw_buf view;
    uint64_t seen;
    bool done;
    int answered, let_go, timeouts;
    bool timed_out[4096];      /* the seat's "timeout" notes, by request */
    char *csv;
    size_t csv_len;
    FILE *csv_f;
    aw_gamelog log;
    int games_logged;
} ctx;

static void publish(void *ud, const char *json, size_t len)
{
    ctx *c = ud;
    if (strstr(json, "\"type\":\"timeout\"")) {
        uint64_t seq = strtoull(strstr(json, "\"seq\":") + 6, NULL, 10);
        pthread_mutex_lock(&c->mu);
        if (seq < 4096)
            c->timed_out[seq] = true;
        c->timeouts++;
        pthread_mutex_unlock(&c->mu);
        return;
    }
    if (!strstr(json, "\"type\":\"view\""))
        return;
    pthread_mutex_lock(&c->mu);
    /* Every fifth request is let go: it runs out (see the top). */
    const char *q = strstr(json, "\"seq\":");
    if (q && strtoull(q + 6, NULL, 10) % 5 == 2 && !strstr(json, "\"answer\":\"none\"")) {
        human_clock_expire(&c->clock, LEFT_NS);
        c->let_go++;
    }
    aw_buf_clear(&c->view);
    aw_buf_add(&c->view, json, len);
    c->seen++;
    pthread_mutex_unlock(&c->mu);
}


static aw_seat *make_local(void *ud, int agent, aw_error *err)
{
    ctx *c = ud;
    (void)err;
    if (agent == 2) {
        /* The server frees its seats after each game: the human seat stays
         * (what serve --human lends, live.h). */
        c->lent = aw_live_human_borrow(c->human);
        return c->lent;
    }
    return aw_cseat_random(1000 + (uint64_t)agent);
}

static int take(void *ud, aw_seat *seat, aw_seat_reply *reply, aw_seat_fault *f, uint64_t *deadline)
{
    ctx *c = ud;
    CHECK(seat == c->lent);
    int rc = aw_human_take(c->human, reply, f, deadline);
    if (rc == AW_SEAT_PENDING)
        *deadline = human_clock_real(&c->clock, *deadline); /* the server's clock */
    return rc;
}

static void watch(void *ud, aw_seat *seat, void (*ready)(void *), void *ready_ud)
{
    ctx *c = ud;
    CHECK(seat == c->lent);
    aw_human_on_ready(c->human, ready, ready_ud);
}

static int before(void *ud, long gno, uint64_t seed, aw_gamelog **log)
{
    ctx *c = ud;
    (void)gno;
    (void)seed;
    c->csv_f = open_memstream(&c->csv, &c->csv_len);
    aw_gamelog_init(&c->log, c->csv_f, NULL, NULL);
    *log = &c->log;
    return 0;
}

static int after(void *ud, long gno, aw_gamelog *log, bool finished)
{
    ctx *c = ud;
    (void)gno;
    CHECK(finished);
    aw_gamelog_flush(log);
    aw_gamelog_free(log);
    fclose(c->csv_f);
    aw_settings set;
    aw_settings_preset(&set, "aiwolf", 5, NULL);
    aw_logcheck_report rep;
    aw_logcheck(c->csv, strlen(c->csv), &set, NULL, &rep, NULL);
    CHECK_MSG(rep.verdict == AW_LOG_LEGAL, "line %ld: %s", rep.line, rep.reason);
    CHECK(strstr(c->csv, ",status,2,") && strstr(c->csv, ",Person\n")); /* the human plays seat 2 */
    free(c->csv);
    c->csv = NULL;
    c->games_logged++;
    return 0;
}

static void *person(void *arg)
{
    ctx *c = arg;
    uint64_t last = 0;
    const char *tok = aw_human_token(c->human);
    for (;;) {
        pthread_mutex_lock(&c->mu);
        bool done = c->done;
        uint64_t seen = c->seen;
        char *v = seen != last ? strdup(c->view.data) : NULL;
        pthread_mutex_unlock(&c->mu);
        if (done && !v)
            break;
        if (!v) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
            continue;
        }
        last = seen;
        const char *q = strstr(v, "\"seq\":");
        uint64_t seq = q ? strtoull(q + 6, NULL, 10) : 0;
        if (!strstr(v, "\"answer\":\"none\"")) {
            if (seq % 5 != 2) {
                struct timespec ts = {0, 20000000}; /* a person takes a moment */
                nanosleep(&ts, NULL);
                const char *al = strstr(v, "\"alive\":[");
                int me = atoi(strstr(v, "\"agent\":") + 8), t = 0;
                for (const char *p = al ? al + 9 : ""; *p && *p != ']';) {
                    int a = (int)strtol(p, (char **)&p, 10);
                    if (a != me) {
                        t = a;
                        break;
                    }
                    if (*p == ',')
                        p++;
                }
                aw_error err;
                int rc = strstr(v, "\"answer\":\"text\"")
                             ? aw_human_answer(c->human, tok, strlen(tok), seq, "Over", 4, 0, &err)
                             : aw_human_answer(c->human, tok, strlen(tok), seq, NULL, 0,
                                               strstr(v, "\"answer\":\"confirm\"") ? AW_NO_AGENT : t, &err);
                CHECK_MSG(rc == 0, "request %llu: %s", (unsigned long long)seq, err.msg);
                c->answered += rc == 0;
            }
        }
        free(v);
    }
    return NULL;
}

int main(void)
{
    ctx c;
    memset(&c, 0, sizeof c);
    pthread_mutex_init(&c.mu, NULL);
    aw_buf_init(&c.view);
    aw_error err;
    aw_human_opts ho = {"Person", TIMEOUT_MS, publish, &c};
    c.human = aw_human_new(&ho, &err);
    human_clock_use(&c.clock, c.human, TIMEOUT_MS);
    aw_settings set;
    aw_netserver_opts no;
    local_serve_opts(&no, &set, 42, 2, 1, &c);
    no.make_local = make_local;
    no.local_take = take;
    no.local_watch = watch;
    no.before = before;
    no.after = after;
    pthread_t th;
    pthread_create(&th, NULL, person, &c);
    aw_tally tally;
    aw_tally_init(&tally, 2);
    int rc = aw_netserver_run(&no, &tally, &err);
    pthread_mutex_lock(&c.mu);
    c.done = true;
    pthread_mutex_unlock(&c.mu);
    pthread_join(th, NULL);
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK_INT(tally.st.games, 2);
    CHECK_INT(c.games_logged, 2);
    CHECK(c.answered > 5);
    CHECK(c.let_go > 0);
    /* Exactly the requests let go timed out. */
    CHECK_INT(c.timeouts, c.let_go);
    for (uint64_t seq = 0; seq < 4096; seq++)
        CHECK_MSG(!c.timed_out[seq] || seq % 5 == 2, "request %llu timed out", (unsigned long long)seq);
    aw_tally_free(&tally);
    c.human->ops->free(c.human);
    aw_buf_free(&c.view);
    return test_done();
}
