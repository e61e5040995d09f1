/* runner: workers on a libuv loop (see runner.h). */
#include "runner.h"

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "util.h"

#define MAX_TRIES 3

typedef struct run run;

typedef struct wproc {
    run *r;
    int id;
    uv_process_t proc;
    uv_pipe_t in, out; /* the worker's stdin (we write), stdout (we read) */
    int open_handles;
    bool restart;      /* start another once the last one's handles are closed */
    bool running;      /* spawned and not exited */
    int unit;          /* under way, or -1 */
    aw_buf partial;    /* a line not yet complete */
    aw_buf lines;      /* the unit's game lines so far */
} wproc;

struct run {
    aw_runner *o;
    uv_loop_t loop;
    uv_signal_t sigint, sigterm;
    uv_timer_t tick;
    wproc *w;
    int *queue;        /* units still to hand out */
    int qhead, qlen;
    int *tries;        /* [nunits] */
    int outstanding;   /* units handed out and not done */
    bool stopping;
    bool closed;       /* the loop's own handles */
    uint64_t warned[256]; /* warnings already printed (hashes) */
    int nwarned;
    int status;
};

typedef struct wreq {
    uv_write_t req;
    char *data;
} wreq;

static void start_worker(wproc *w);
static void dispatch(run *r);

static void on_handle_closed(uv_handle_t *h)
{
    wproc *w = h->data;
    if (--w->open_handles == 0 && w->restart) {
        w->restart = false;
        if (!w->r->stopping)
            start_worker(w);
    }
}

static void close_loop_handles(run *r)
{
    if (r->closed)
        return;
    r->closed = true;
    uv_timer_stop(&r->tick);
    uv_close((uv_handle_t *)&r->sigint, NULL);
    uv_close((uv_handle_t *)&r->sigterm, NULL);
    uv_close((uv_handle_t *)&r->tick, NULL);
}

static void close_worker(wproc *w)
{
    if (!uv_is_closing((uv_handle_t *)&w->in))
        uv_close((uv_handle_t *)&w->in, on_handle_closed);
    if (!uv_is_closing((uv_handle_t *)&w->out))
        uv_close((uv_handle_t *)&w->out, on_handle_closed);
}

static void stop_all(run *r, int status)
{
    if (!r->stopping) {
        r->stopping = true;
        r->status = status;
    }
    for (int i = 0; i < r->o->jobs; i++)
        if (r->w[i].running)
            uv_process_kill(&r->w[i].proc, SIGKILL);
    close_loop_handles(r);
}

static void fail(run *r, const char *fmt, const char *arg)
{
    if (!r->stopping)
        snprintf(r->o->error, sizeof r->o->error, fmt, arg);
    stop_all(r, AW_RUNNER_FAILED);
}

static void on_written(uv_write_t *req, int status)
{
    (void)status; /* a worker that cannot read is seen when it exits */
    wreq *wr = (wreq *)req;
    free(wr->data);
    free(wr);
}

static void send_unit(wproc *w, int unit)
{
    const aw_sched_unit *u = &w->r->o->sched->units[unit];
    aw_buf b;
    aw_buf_init(&b);
    aw_buf_printf(&b, "U %d %ld %d %d ", unit, u->first, u->players, u->ngames);
    for (int a = 1; a <= u->players; a++)
        aw_buf_printf(&b, "%s%d", a > 1 ? "," : "", u->entry[a]);
    for (int g = 0; g < u->ngames; g++) {
        aw_buf_printf(&b, " %llu:", (unsigned long long)u->games[g].seed);
        for (int a = 1; a <= u->players; a++)
            aw_buf_addc(&b, (char)('0' + u->games[g].role[a]));
    }
    aw_buf_addc(&b, '\n');
    wreq *wr = aw_xcalloc(1, sizeof *wr);
    wr->data = b.data; /* the request owns the bytes until written */
    uv_buf_t ub = uv_buf_init(b.data, (unsigned)b.len);
    w->unit = unit;
    aw_buf_clear(&w->lines);
    if (uv_write(&wr->req, (uv_stream_t *)&w->in, &ub, 1, on_written) != 0) {
        free(wr->data);
        free(wr);
        /* The exit callback puts the unit back. */
        uv_process_kill(&w->proc, SIGKILL);
    }
}

static void requeue(run *r, int unit)
{
    /* Back to the front: it is played next. */
    if (r->qhead == 0) {
        memmove(r->queue + 1, r->queue, (size_t)r->qlen * sizeof *r->queue);
        r->qhead = 1;
    }
    r->queue[--r->qhead] = unit;
    r->qlen++;
}

static void on_line(wproc *w, const char *line, size_t len)
{
    run *r = w->r;
    if (r->stopping)
        return;
    if (len >= 2 && line[0] == 'R' && line[1] == ' ') {
        aw_buf_add(&w->lines, line + 2, len - 2);
        aw_buf_addc(&w->lines, '\n');
    } else if (len >= 2 && line[0] == 'D' && line[1] == ' ') {
        int unit = atoi(line + 2);
        if (unit != w->unit) {
            fail(r, "a worker finished a unit it was not given%s", "");
            return;
        }
        w->unit = -1;
        r->outstanding--;
        if (r->o->on_unit(r->o->ud, unit, w->lines.data ? w->lines.data : "", w->lines.len) < 0) {
            stop_all(r, AW_RUNNER_FAILED);
            return;
        }
        aw_buf_clear(&w->lines);
        dispatch(r);
    } else if (len >= 2 && line[0] == 'W' && line[1] == ' ') {
        /* Every worker says it: print each warning once. */
        uint64_t h = aw_fnv64(AW_FNV64_INIT, line, len);
        for (int i = 0; i < r->nwarned; i++)
            if (r->warned[i] == h)
                return;
        if (r->nwarned < (int)(sizeof r->warned / sizeof r->warned[0]))
            r->warned[r->nwarned++] = h;
        /* an entry's warning holds its own text (a compile error): escaped */
        if (!r->o->warned) {
            aw_term_fprintf(stderr, "aiwolf contest: %.*s", (int)(len - 2), line + 2);
            fputc('\n', stderr);
        }
    } else if (len >= 2 && line[0] == 'E' && line[1] == ' ') {
        char msg[400];
        snprintf(msg, sizeof msg, "%.*s", (int)(len - 2 > 390 ? 390 : len - 2), line + 2);
        fail(r, "a worker stopped: %s", msg);
    } else {
        fail(r, "a worker wrote something unexpected%s", "");
    }
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)h;
    (void)hint;
    static char space[65536]; /* one read at a time on this loop */
    *buf = uv_buf_init(space, sizeof space);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    wproc *w = s->data;
    if (n < 0) {
        uv_read_stop(s);
        return; /* the exit callback follows */
    }
    aw_buf_add(&w->partial, buf->base, (size_t)n);
    size_t start = 0;
    for (size_t i = 0; i < w->partial.len; i++)
        if (w->partial.data[i] == '\n') {
            on_line(w, w->partial.data + start, i - start);
            start = i + 1;
        }
    if (start) {
        memmove(w->partial.data, w->partial.data + start, w->partial.len - start);
        w->partial.len -= start;
    }
}

static void on_exit_cb(uv_process_t *p, int64_t status, int sig)
{
    wproc *w = p->data;
    run *r = w->r;
    w->running = false;
    uv_close((uv_handle_t *)p, on_handle_closed);
    close_worker(w);
    if (r->stopping)
        return;
    if (w->unit >= 0) {
        int unit = w->unit;
        w->unit = -1;
        r->outstanding--;
        if (++r->tries[unit] >= MAX_TRIES) {
            char why[64];
            snprintf(why, sizeof why, "%d (%s %d)", unit, sig ? "signal" : "status", sig ? sig : (int)status);
            fail(r, "unit %s: its worker died three times; the results so far are kept", why);
            return;
        }
        fprintf(stderr, "aiwolf contest: a worker died (%s %d) during unit %d; it is played again\n",
                sig ? "signal" : "status", sig ? sig : (int)status, unit);
        requeue(r, unit);
    } else if (r->qlen > 0) {
        fprintf(stderr, "aiwolf contest: a worker died (%s %d); starting another\n", sig ? "signal" : "status",
                sig ? sig : (int)status);
    }
    if (r->qlen > 0)
        w->restart = true; /* once its handles are closed */
}

static void start_worker(wproc *w)
{
    run *r = w->r;
    aw_buf_clear(&w->partial);
    uv_pipe_init(&r->loop, &w->in, 0);
    uv_pipe_init(&r->loop, &w->out, 0);
    w->in.data = w->out.data = w->proc.data = w;
    w->open_handles = 2;
    uv_stdio_container_t stdio[3];
    stdio[0].flags = UV_CREATE_PIPE | UV_READABLE_PIPE;
    stdio[0].data.stream = (uv_stream_t *)&w->in;
    stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    stdio[1].data.stream = (uv_stream_t *)&w->out;
    stdio[2].flags = UV_INHERIT_FD;
    stdio[2].data.fd = 2;
    uv_process_options_t po;
    memset(&po, 0, sizeof po);
    po.file = r->o->worker_argv[0];
    po.args = (char **)r->o->worker_argv;
    po.exit_cb = on_exit_cb;
    po.stdio = stdio;
    po.stdio_count = 3;
    int rc = uv_spawn(&r->loop, &w->proc, &po);
    if (rc != 0) {
        close_worker(w);
        w->open_handles++;
        uv_close((uv_handle_t *)&w->proc, on_handle_closed);
        fail(r, "cannot start a worker: %s", uv_strerror(rc));
        return;
    }
    w->open_handles++;
    w->running = true;
    w->unit = -1;
    uv_read_start((uv_stream_t *)&w->out, on_alloc, on_read);
    dispatch(r);
}

static void dispatch(run *r)
{
    if (r->stopping)
        return;
    for (int i = 0; i < r->o->jobs && r->qlen > 0; i++) {
        wproc *w = &r->w[i];
        if (!w->running || w->unit >= 0)
            continue;
        int unit = r->queue[r->qhead++];
        r->qlen--;
        r->outstanding++;
        send_unit(w, unit);
    }
    if (r->qlen == 0 && r->outstanding == 0) {
        /* All played: the workers end when their input does. */
        for (int i = 0; i < r->o->jobs; i++)
            if (r->w[i].running && !uv_is_closing((uv_handle_t *)&r->w[i].in))
                uv_close((uv_handle_t *)&r->w[i].in, on_handle_closed);
        r->stopping = true;
        r->status = AW_RUNNER_DONE;
        close_loop_handles(r);
    }
}

static void on_signal(uv_signal_t *s, int sig)
{
    (void)sig;
    run *r = s->data;
    stop_all(r, AW_RUNNER_INTERRUPTED);
}

static void on_tick(uv_timer_t *t)
{
    run *r = t->data;
    if (r->o->on_tick && !r->stopping)
        r->o->on_tick(r->o->ud);
}

int aw_runner_run(aw_runner *o)
{
    run r;
    memset(&r, 0, sizeof r);
    r.o = o;
    /* A worker that died with its input pipe open must not take the runner
     * with it: the write fails instead, and its exit is handled. */
    signal(SIGPIPE, SIG_IGN);
    o->error[0] = 0;
    int n = o->sched->nunits;
    r.queue = aw_xcalloc((size_t)n + 1, sizeof *r.queue);
    r.tries = aw_xcalloc((size_t)n + 1, sizeof *r.tries);
    for (int u = 0; u < n; u++)
        if (o->todo[u])
            r.queue[r.qlen++] = u;
    if (r.qlen == 0) {
        free(r.queue);
        free(r.tries);
        return AW_RUNNER_DONE;
    }
    if (o->jobs > r.qlen)
        o->jobs = r.qlen;
    uv_loop_init(&r.loop);
    uv_signal_init(&r.loop, &r.sigint);
    uv_signal_init(&r.loop, &r.sigterm);
    r.sigint.data = r.sigterm.data = &r;
    uv_signal_start(&r.sigint, on_signal, SIGINT);
    uv_signal_start(&r.sigterm, on_signal, SIGTERM);
    uv_timer_init(&r.loop, &r.tick);
    r.tick.data = &r;
    uv_timer_start(&r.tick, on_tick, 1000, 1000);
    r.w = aw_xcalloc((size_t)o->jobs, sizeof *r.w);
    for (int i = 0; i < o->jobs; i++) {
        r.w[i].r = &r;
        r.w[i].id = i;
        r.w[i].unit = -1;
        aw_buf_init(&r.w[i].partial);
        aw_buf_init(&r.w[i].lines);
    }
    for (int i = 0; i < o->jobs && !r.stopping; i++)
        start_worker(&r.w[i]);
    uv_run(&r.loop, UV_RUN_DEFAULT);
    uv_loop_close(&r.loop);
    for (int i = 0; i < o->jobs; i++) {
        aw_buf_free(&r.w[i].partial);
        aw_buf_free(&r.w[i].lines);
    }
    free(r.w);
    free(r.queue);
    free(r.tries);
    return r.status;
}
