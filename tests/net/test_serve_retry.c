/* A game that lacks resources for now — a local seat that cannot be made
 * (out of descriptors, as an agent file that cannot be opened), a log that
 * cannot be opened — waits and is tried again; the run goes on and every
 * game is played (before: the first such failure ended the whole run).
 * Games of local C seats only, through aw_netserver_run, two at once: the
 * first three seats asked for fail, then the log of the third game fails
 * twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "netserver.h"
#include "test.h"
#include "local_serve.h"

typedef struct ctx {
    int made, refused;     /* make_local calls that gave a seat / failed */
    int befores, retried;  /* before calls, and those that said retry */
    int afters, finished;
    int seat_fail;         /* make_local calls still to fail */
    int log_fail;          /* before calls for game 3 still to fail */
} ctx;

static aw_seat *make_local(void *ud, int agent, aw_error *err)
{
    ctx *c = ud;
    if (c->seat_fail > 0) {
        c->seat_fail--;
        c->refused++;
        aw_fail(err, AW_EIO, "agents/x.lua: Too many open files (seat %d)", agent);
        return NULL;
    }
    c->made++;
    return aw_cseat_random((uint64_t)(1000 + c->made));
}

static int before(void *ud, long gno, uint64_t seed, aw_gamelog **log)
{
    ctx *c = ud;
    (void)seed;
    c->befores++;
    if (gno == 2 && c->log_fail > 0) {
        c->log_fail--;
        c->retried++;
        return AW_NETSERVER_RETRY;
    }
    *log = NULL;
    return 0;
}

static int after(void *ud, long gno, aw_gamelog *log, bool finished)
{
    ctx *c = ud;
    (void)gno;
    (void)log;
    c->afters++;
    c->finished += finished;
    return 0;
}

int main(void)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.seat_fail = 3;
    c.log_fail = 2;
    aw_settings set;
    aw_netserver_opts no;
    local_serve_opts(&no, &set, 21, 4, 2, &c);
    no.make_local = make_local;
    no.before = before;
    no.after = after;
    no.log = stderr;
    aw_tally tally;
    aw_tally_init(&tally, 2);
    aw_error err;
    int rc = aw_netserver_run(&no, &tally, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK_INT(tally.st.games, 4);
    CHECK_INT(c.refused, 3);
    CHECK_INT(c.retried, 2);
    /* every game made its five seats once it could, and game 3 twice more
     * (its seats come before its log, and are let go when the log fails);
     * the before calls: the four games, and the two that said retry */
    CHECK_INT(c.made, 4 * 5 + 2 * 5);
    CHECK_INT(c.befores, 4 + 2);
    CHECK_INT(c.afters, 0); /* no log, so no after */
    aw_tally_free(&tally);
    return test_done();
}
