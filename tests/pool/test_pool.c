/* The worker pool (pool.c): every record of every worker comes here whole
 * and in its worker's order, even records larger than a pipe holds; a
 * worker that ends without its end record is reported (AW_POOL_DIED) after
 * its records so far; a stop reaches every worker as one SIGINT; the pool
 * waits for its children. */
#define _GNU_SOURCE /* usleep */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pool.h"
#include "test.h"

#define BIG 200000 /* more than a pipe's buffer: read in parts */

typedef struct rec {
    int id, seq;
    bool end;
    char fill[BIG];
} rec;

typedef struct ctx {
    int per_worker;   /* records before the end record */
    int die_after;    /* worker 1 exits after this many records (-1: never) */
    bool wait_for_int; /* each worker waits for SIGINT before its end record */
    int got[8], ends[8];
    bool in_order, whole;
    int ticks;
} ctx;

static volatile sig_atomic_t got_int;
static void on_int(int sig)
{
    (void)sig;
    got_int = 1;
}

static void work(void *ud, int id, int fd)
{
    ctx *c = ud;
    rec *r = calloc(1, sizeof *r);
    for (int i = 0; i < c->per_worker; i++) {
        if (id == 1 && i == c->die_after)
            _exit(3);
        r->id = id;
        r->seq = i;
        memset(r->fill, 'a' + (i % 26), sizeof r->fill);
        aw_write_all(fd, r, sizeof *r);
    }
    while (c->wait_for_int && !got_int)
        usleep(1000); /* until the pool's SIGINT comes (no bound: the test's own timeout is ctest's) */
    memset(r, 0, sizeof *r);
    r->id = id;
    r->end = true;
    aw_write_all(fd, r, sizeof *r);
    free(r);
}

static bool take(void *ud, int id, const void *p)
{
    ctx *c = ud;
    const rec *r = p;
    if (r->id != id)
        c->in_order = false;
    if (r->end) {
        c->ends[id]++;
        return true;
    }
    if (r->seq != c->got[id])
        c->in_order = false;
    for (size_t i = 0; i < sizeof r->fill; i++)
        if (r->fill[i] != 'a' + (r->seq % 26)) {
            c->whole = false;
            break;
        }
    c->got[id]++;
    return false;
}

static void tick(void *ud)
{
    ((ctx *)ud)->ticks++;
}

static int run(ctx *c, int jobs, volatile int *stop)
{
    c->in_order = c->whole = true;
    aw_pool_opts o = {.jobs = jobs, .rec_size = sizeof(rec), .work = work, .take = take, .tick = tick,
                      .stop = stop, .ud = c};
    aw_error err;
    return aw_pool_run(&o, &err);
}

int main(void)
{
    /* every record, whole and in order */
    ctx c = {.per_worker = 7, .die_after = -1};
    CHECK_INT(run(&c, 3, NULL), AW_POOL_DONE);
    for (int j = 0; j < 3; j++) {
        CHECK_INT(c.got[j], 7);
        CHECK_INT(c.ends[j], 1);
    }
    CHECK(c.in_order);
    CHECK(c.whole);
    CHECK(c.ticks > 0);
    CHECK(waitpid(-1, NULL, WNOHANG) < 0); /* no child left to wait for */

    /* a worker that dies: its records so far, then DIED; the others whole */
    ctx d = {.per_worker = 5, .die_after = 2};
    CHECK_INT(run(&d, 3, NULL), AW_POOL_DIED);
    CHECK_INT(d.got[0], 5);
    CHECK_INT(d.got[1], 2);
    CHECK_INT(d.ends[1], 0);
    CHECK_INT(d.got[2], 5);
    CHECK(d.in_order);

    /* a stop: one SIGINT to each worker (they inherit this handler) */
    signal(SIGINT, on_int);
    volatile int stop = 1;
    ctx e = {.per_worker = 1, .die_after = -1, .wait_for_int = true};
    CHECK_INT(run(&e, 2, &stop), AW_POOL_DONE);
    CHECK_INT(e.ends[0] + e.ends[1], 2);
    CHECK_INT(got_int, 0); /* the parent itself got none */
    return test_done();
}
