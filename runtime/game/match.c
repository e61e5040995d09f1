/* match: many games between the same seats (see match.h). */
#include "match.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "rng.h"

void aw_tally_init(aw_tally *t, int nentries)
{
    memset(t, 0, sizeof *t);
    aw_stats_init(&t->st, nentries, AW_STATS_BY_VERSION);
}

void aw_tally_free(aw_tally *t)
{
    aw_stats_free(&t->st);
}

void aw_tally_add(aw_tally *t, const aw_game_result *res, int players, const int *entry_of,
                  const char *const *version_of)
{
    aw_stat_game g = {.players = players, .entry = entry_of, .role = res->role, .winner = res->winner,
                      .abandoned = res->abandoned, .fault_calls = res->faults, .faults = (const int(*)[AW_NFAULTS])res->seat_faults,
                      .version = version_of};
    aw_stats_add(&t->st, &g);
}

/* The game's call hook during a match: passes every call on to the
 * caller's hook and reports each entry's first fault in each version
 * (through a worker's pipe when fwd is set). */
typedef struct match_calls {
    const aw_match_opts *o;
    aw_seat **seats;
    const int *entry_of;
    long gno;
    int fwd;          /* a worker's pipe, or -1 */
    char (*seen)[24]; /* "entry:version" keys already reported */
    int nseen, capseen;
} match_calls;

/* What a worker sends back: a game's result, a first fault, its end. */
typedef struct wrec {
    char type; /* 'R', 'F', 'E' */
    long gno;
    aw_game_result res;
    char versions[AW_MAX_PLAYERS + 1][20];
    int entry, agent, status, output_errors;
    aw_req_kind kind;
    aw_seat_fault fault;
    char msg[256];
} wrec;

/* The parent's side of a run on worker processes (pool.h). */
typedef struct match_pool {
    const aw_match_opts *o;
    aw_seat **seats;
    aw_tally *t;
    aw_error *err;
    int status;
    wrec **pending; /* results waiting for an earlier game's: slot i is game next + i */
    long next, cap;
    long pair[4];
    match_calls mc; /* the first faults already passed on */
    uint64_t t0, last_progress;
    double secs0;
} match_pool;

static bool seen_before(match_calls *mc, int entry, const char *v)
{
    char key[24];
    snprintf(key, sizeof key, "%d:%.16s", entry, v ? v : "");
    for (int i = 0; i < mc->nseen; i++)
        if (strcmp(mc->seen[i], key) == 0)
            return true;
    if (mc->nseen == mc->capseen) {
        mc->capseen = mc->capseen ? mc->capseen * 2 : 8;
        mc->seen = aw_xrealloc(mc->seen, (size_t)mc->capseen * sizeof *mc->seen);
    }
    memcpy(mc->seen[mc->nseen++], key, sizeof key);
    return false;
}

static int write_rec(int fd, const wrec *r)
{
    return aw_write_all(fd, r, sizeof *r);
}

static void match_fault(match_calls *mc, int agent, aw_req_kind kind, const aw_seat_fault *f);

static void match_call(void *ud, int agent, aw_req_kind kind, uint64_t ns, const aw_seat_fault *f)
{
    match_calls *mc = ud;
    if (mc->o->game.call)
        mc->o->game.call(mc->o->game.call_ud, agent, kind, ns, f);
    match_fault(mc, agent, kind, f);
}

/* A notification's outcome that came later (game.h's late). */
static void match_late(void *ud, int agent, const aw_seat_late *l)
{
    match_calls *mc = ud;
    if (mc->o->game.late)
        mc->o->game.late(mc->o->game.late_ud, agent, l);
    if (l->fault.kind != AW_FAULT_NONE)
        match_fault(mc, agent, l->kind, &l->fault);
}

/* The first fault of each entry's version, for first_fault. */
static void match_fault(match_calls *mc, int agent, aw_req_kind kind, const aw_seat_fault *f)
{
    if (!f || !mc->o->first_fault || agent < 1 || agent > AW_MAX_PLAYERS)
        return;
    aw_seat *s = mc->seats[agent];
    const char *v = s->ops->version ? s->ops->version(s) : NULL;
    if (seen_before(mc, mc->entry_of[agent], v))
        return;
    if (mc->fwd >= 0) {
        wrec *r = aw_xcalloc(1, sizeof *r);
        r->type = 'F';
        r->gno = mc->gno;
        r->entry = mc->entry_of[agent];
        r->agent = agent;
        r->kind = kind;
        r->fault = *f;
        snprintf(r->versions[0], sizeof r->versions[0], "%s", v ? v : "");
        write_rec(mc->fwd, r);
        free(r);
        return;
    }
    mc->o->first_fault(mc->o->ud, mc->gno, mc->entry_of[agent], v, agent, kind, f);
}

#define NUMBERS_STREAM 0x6e756d62657273ull /* "numbers": far from the seats' streams 1..18 */

void aw_match_numbers(uint64_t seed, int players, int n[AW_MAX_PLAYERS + 1])
{
    aw_rng r;
    aw_rng_seed(&r, aw_rng_derive(seed, NUMBERS_STREAM));
    n[0] = 0;
    for (int a = 1; a <= players; a++)
        n[a] = a;
    aw_rng_shuffle(&r, n + 1, players);
}

/* Game gno as played: its seed, its seats, entries and deal by agent
 * number (the caller's, put through the game's numbers). */
typedef struct seating {
    uint64_t seed;
    bool mirrored;
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    int entry_of[AW_MAX_PLAYERS + 1];
    aw_role deal[AW_MAX_PLAYERS + 1];
} seating;

static void seat_game(const aw_match_opts *o, aw_seat **seats, long gno, seating *st)
{
    int n = o->game.settings->players;
    /* Head to head: pairs of games on one seed, the second mirrored. */
    st->mirrored = o->mirror && gno % 2 == 1;
    st->seed = o->game.seed + (uint64_t)(o->mirror ? gno / 2 : gno);
    aw_seat **from = st->mirrored ? o->mirror : seats;
    const int *eof = st->mirrored ? o->mirror_entry_of : o->entry_of;
    int num[AW_MAX_PLAYERS + 1];
    if (o->draw_numbers) {
        aw_match_numbers(st->seed, n, num);
    } else {
        for (int a = 0; a <= n; a++)
            num[a] = a;
    }
    memset(st->seats, 0, sizeof st->seats);
    for (int a = 0; a <= AW_MAX_PLAYERS; a++)
        st->deal[a] = AW_ROLE_NONE;
    for (int a = 1; a <= n; a++) {
        st->seats[a] = from ? from[num[a]] : NULL;
        st->entry_of[a] = eof[num[a]];
        if (o->game.deal)
            st->deal[a] = o->game.deal[num[a]];
    }
}

/* Counts game gno's result (in game order). */
static void account(const aw_match_opts *o, aw_tally *t, long gno, const aw_game_result *res,
                    const char *const *versions, long pair[4])
{
    seating st;
    seat_game(o, NULL, gno, &st);
    bool mirrored = st.mirrored;
    const int *eof = st.entry_of;
    int n = o->game.settings->players;
    aw_tally_add(t, res, n, eof, versions);
    if (!o->mirror)
        return;
    /* Entry 0's win rate minus entry 1's, over the pair. */
    for (int a = 1; a <= n; a++) {
        bool won = aw_role_team(res->role[a]) == res->winner;
        pair[eof[a] == 0 ? 0 : 1]++;
        pair[eof[a] == 0 ? 2 : 3] += won;
    }
    if (mirrored) {
        double d = (double)pair[2] / (double)(pair[0] ? pair[0] : 1) - (double)pair[3] / (double)(pair[1] ? pair[1] : 1);
        t->pairs++;
        t->pair_sum += d;
        t->pair_sumsq += d * d;
        pair[0] = pair[1] = pair[2] = pair[3] = 0;
    }
}

/* Plays game gno: 1 when done (*res filled), 0 when `before` stopped the
 * match, -1 when the game could not start. */
static int play_one(const aw_match_opts *o, aw_seat **seats, match_calls *mc, long gno, aw_game_result *res,
                    const char **versions, int *output_errors, aw_error *err)
{
    aw_game_opts go = o->game;
    seating st;
    seat_game(o, seats, gno, &st);
    aw_seat **gseats = st.seats;
    go.seed = st.seed;
    if (o->game.deal)
        go.deal = st.deal;
    mc->seats = gseats;
    mc->entry_of = st.entry_of;
    mc->gno = gno;
    go.call = match_call;
    go.call_ud = mc;
    go.late = match_late;
    go.late_ud = mc;
    go.game_no = (int)gno;
    go.log = NULL;
    if (o->before && o->before(o->ud, gno, go.seed, &go.log) < 0)
        return 0;
    int prc = aw_game_play(&go, gseats, res, err);
    mc->seats = NULL; /* st's: gone with this call */
    mc->entry_of = NULL;
    if (o->after && o->after(o->ud, gno, go.log) < 0)
        (*output_errors)++;
    if (prc < 0)
        return -1;
    for (int a = 1; a <= go.settings->players; a++)
        versions[a] = gseats[a]->ops->version ? gseats[a]->ops->version(gseats[a]) : NULL;
    return 1;
}

static int run_here(const aw_match_opts *o, aw_seat **seats, aw_tally *t, aw_error *err)
{
    match_calls mc = {.o = o, .fwd = -1};
    uint64_t t0 = aw_now_ns(), last_progress = t0;
    double secs0 = t->secs;
    int status = AW_MATCH_DONE;
    long pair[4] = {0, 0, 0, 0};
    for (long gno = 0; gno < o->games; gno++) {
        if (o->stop && *o->stop) {
            status = AW_MATCH_INTERRUPTED;
            break;
        }
        aw_game_result res;
        const char *versions[AW_MAX_PLAYERS + 1] = {0};
        int rc = play_one(o, seats, &mc, gno, &res, versions, &t->output_errors, err);
        if (rc <= 0) {
            status = rc == 0 ? AW_MATCH_STOPPED : AW_MATCH_FAILED;
            break;
        }
        account(o, t, gno, &res, versions, pair);
        uint64_t now = aw_now_ns();
        t->secs = secs0 + (now - t0) / 1e9;
        if (o->progress && now - last_progress > 2000000000ull) {
            last_progress = now;
            o->progress(o->ud, t, o->games);
        }
    }
    t->secs = secs0 + (aw_now_ns() - t0) / 1e9;
    free(mc.seen);
    return status;
}

/* In a worker, Ctrl-C (from the terminal, or passed on by the parent) only
 * asks it to stop after its game, however often it comes; the parent
 * decides when to give up. */
static volatile int *worker_stop;
static void on_worker_int(int sig)
{
    (void)sig;
    if (worker_stop)
        *worker_stop = 1;
}

/* A worker's whole life (the pool's work): every jobs-th game (pair, head
 * to head) from `first`, a record for each, then the end record. */
static void worker(void *ud, int id, int fd)
{
    const match_pool *mp = ud;
    const aw_match_opts *o = mp->o;
    match_calls mc = {.o = o, .fwd = fd};
    worker_stop = o->stop;
    signal(SIGINT, worker_stop ? on_worker_int : SIG_IGN);
    wrec *r = aw_xcalloc(1, sizeof *r);
    int status = AW_MATCH_DONE, output_errors = 0;
    aw_error err;
    memset(&err, 0, sizeof err);
    long step = o->mirror ? 2 : 1;
    for (long g0 = (long)id * step; g0 < o->games && status == AW_MATCH_DONE; g0 += (long)o->jobs * step) {
        for (long gno = g0; gno < g0 + step && gno < o->games; gno++) {
            if (gno == g0 && o->stop && *o->stop) {
                status = AW_MATCH_INTERRUPTED;
                break;
            }
            memset(r, 0, sizeof *r);
            const char *versions[AW_MAX_PLAYERS + 1] = {0};
            int rc = play_one(o, mp->seats, &mc, gno, &r->res, versions, &output_errors, &err);
            if (rc <= 0) {
                status = rc == 0 ? AW_MATCH_STOPPED : AW_MATCH_FAILED;
                break;
            }
            r->type = 'R';
            r->gno = gno;
            for (int a = 1; a <= AW_MAX_PLAYERS; a++)
                snprintf(r->versions[a], sizeof r->versions[a], "%s", versions[a] ? versions[a] : "");
            if (write_rec(fd, r) < 0) {
                status = AW_MATCH_FAILED;
                break;
            }
        }
    }
    memset(r, 0, sizeof *r);
    r->type = 'E';
    r->status = status;
    r->output_errors = output_errors;
    snprintf(r->msg, sizeof r->msg, "%.250s", err.msg);
    write_rec(fd, r);
    free(r);
    free(mc.seen);
}

/* A worker's record here (the pool's take): a first fault is passed on, a
 * game's result waits until every earlier game's has come, the end record
 * ends the worker. */
static bool take(void *ud, int id, const void *rec)
{
    (void)id;
    match_pool *mp = ud;
    const aw_match_opts *o = mp->o;
    const wrec *r = rec;
    if (r->type == 'F') {
        if (o->first_fault && !seen_before(&mp->mc, r->entry, r->versions[0]))
            o->first_fault(o->ud, r->gno, r->entry, r->versions[0][0] ? r->versions[0] : NULL, r->agent, r->kind,
                           &r->fault);
    } else if (r->type == 'E') {
        mp->t->output_errors += r->output_errors;
        if (r->status == AW_MATCH_FAILED) {
            aw_fail(mp->err, AW_EINVAL, "%s", r->msg);
            mp->status = AW_MATCH_FAILED;
        } else if (r->status == AW_MATCH_STOPPED && mp->status == AW_MATCH_DONE) {
            mp->status = AW_MATCH_STOPPED;
        } else if (r->status == AW_MATCH_INTERRUPTED && mp->status == AW_MATCH_DONE) {
            mp->status = AW_MATCH_INTERRUPTED;
        }
        return true;
    } else if (r->type == 'R' && r->gno >= mp->next) {
        while (r->gno - mp->next >= mp->cap) {
            mp->pending = aw_xrealloc(mp->pending, (size_t)mp->cap * 2 * sizeof *mp->pending);
            memset(mp->pending + mp->cap, 0, (size_t)mp->cap * sizeof *mp->pending);
            mp->cap *= 2;
        }
        wrec *k = aw_xmalloc(sizeof *k);
        *k = *r;
        /* The window starts at `next`: slot (gno - next). */
        mp->pending[r->gno - mp->next] = k;
        while (mp->pending[0]) {
            const char *versions[AW_MAX_PLAYERS + 1];
            for (int a = 0; a <= AW_MAX_PLAYERS; a++)
                versions[a] = mp->pending[0]->versions[a][0] ? mp->pending[0]->versions[a] : NULL;
            account(o, mp->t, mp->next, &mp->pending[0]->res, versions, mp->pair);
            free(mp->pending[0]);
            memmove(mp->pending, mp->pending + 1, (size_t)(mp->cap - 1) * sizeof *mp->pending);
            mp->pending[mp->cap - 1] = NULL;
            mp->next++;
        }
    }
    return false;
}

/* After every wait (the pool's tick): the time so far, and progress. */
static void tick(void *ud)
{
    match_pool *mp = ud;
    uint64_t now = aw_now_ns();
    mp->t->secs = mp->secs0 + (now - mp->t0) / 1e9;
    if (mp->o->progress && now - mp->last_progress > 2000000000ull) {
        mp->last_progress = now;
        mp->o->progress(mp->o->ud, mp->t, mp->o->games);
    }
}

static int run_workers(const aw_match_opts *o, aw_seat **seats, aw_tally *t, aw_error *err)
{
    match_pool mp = {.o = o, .seats = seats, .t = t, .err = err, .status = AW_MATCH_DONE, .cap = 64,
                     .mc = {.o = o, .fwd = -1}};
    mp.t0 = mp.last_progress = aw_now_ns();
    mp.secs0 = t->secs;
    mp.pending = aw_xcalloc((size_t)mp.cap, sizeof *mp.pending);
    aw_pool_opts po = {.jobs = o->jobs, .rec_size = sizeof(wrec), .work = worker, .take = take, .tick = tick,
                       .stop = o->stop, .ud = &mp};
    int prc = aw_pool_run(&po, err);
    int status = prc == AW_POOL_NO_START ? AW_MATCH_FAILED : mp.status;
    /* After an interruption or a failure, later games may have come before
     * earlier ones: count them too, in order. */
    for (long i = 0; i < mp.cap; i++)
        if (mp.pending[i]) {
            const char *versions[AW_MAX_PLAYERS + 1];
            for (int a = 0; a <= AW_MAX_PLAYERS; a++)
                versions[a] = mp.pending[i]->versions[a][0] ? mp.pending[i]->versions[a] : NULL;
            account(o, t, mp.next + i, &mp.pending[i]->res, versions, mp.pair);
            free(mp.pending[i]);
        }
    if (prc == AW_POOL_DIED && status == AW_MATCH_DONE) {
        aw_fail(err, AW_EIO, "a worker process died; the summary counts the games it finished");
        status = AW_MATCH_FAILED;
    }
    if (o->stop && *o->stop && status == AW_MATCH_DONE && mp.next < o->games)
        status = AW_MATCH_INTERRUPTED;
    t->secs = mp.secs0 + (aw_now_ns() - mp.t0) / 1e9;
    free(mp.pending);
    free(mp.mc.seen);
    return status;
}

int aw_match_run(const aw_match_opts *o, aw_seat **seats, aw_tally *t, aw_error *err)
{
    if (o->jobs > 1 && o->games > 1)
        return run_workers(o, seats, t, err);
    return run_here(o, seats, t, err);
}
