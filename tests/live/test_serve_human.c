/* The TCP server's loop with a seat that answers later (netserver.h's
 * local_take): a human seat (humanseat.h) in a game of local seats, its
 * person a thread that answers some requests after a while and lets others
 * run out — the seat wakes the server, the other seats play on, and each game
 * ends with a legal log in which the person's answers and time-outs stand. */
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

typedef struct ctx {
    aw_seat *human;
    aw_seat *lent; /* the seat lent for it in the game under way */
    pthread_mutex_t mu;
    aw_buf view;
    uint64_t seen;
    bool done;
    int answered, let_go;
    bool timed_out[4096];      /* the seat's "timeout" notes, by request */
    uint64_t refused[64];      /* answers refused (the person was too slow) */
    int nrefused;
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
        pthread_mutex_unlock(&c->mu);
        return;
    }
    if (!strstr(json, "\"type\":\"view\""))
        return;
    pthread_mutex_lock(&c->mu);
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
    return aw_human_take(c->human, reply, f, deadline);
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
            if (seq % 5 == 2) {
                c->let_go++;
            } else {
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
                /* A person slowed down past the deadline (a loaded machine)
                 * is refused, and that request must have timed out. */
                if (rc != 0 && c->nrefused < 64 && (strstr(err.msg, "too late") || strstr(err.msg, "not waiting")))
                    c->refused[c->nrefused++] = seq;
                else
                    CHECK_MSG(rc == 0, "%s", err.msg);
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
    aw_human_opts ho = {"Person", 150, publish, &c};
    c.human = aw_human_new(&ho, &err);
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
    CHECK(c.nrefused < c.answered);
    for (int i = 0; i < c.nrefused; i++)
        CHECK_MSG(c.refused[i] < 4096 && c.timed_out[c.refused[i]], "request %llu: refused but not timed out",
                  (unsigned long long)c.refused[i]);
    CHECK(c.let_go > 0);
    aw_tally_free(&tally);
    c.human->ops->free(c.human);
    aw_buf_free(&c.view);
    return test_done();
}
