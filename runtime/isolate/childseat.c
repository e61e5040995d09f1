/* childseat: an agent in a confined child process (see childseat.h). The
 * host half sends one ask frame per request (childframe.h), enforces the
 * deadline with poll and judges the answer frame that comes back; the child
 * half rebuilds the agent's view from the frames and calls the inner seat.
 *
 * Why fork and not posix_spawn of /proc/self/exe: the inner seat (the Lua
 * agent's source, its options, the protocol hooks) is already built in the
 * host, and a forked child simply has it; no exec means execve can be
 * forbidden outright; tests can run C hooks inside the confined child. The
 * cost, a copy-on-write image of the host, is paid once per game. The fork
 * happens before the engine deals, but the driver already holds the game's
 * seed (docs/isolation.md). The confinement itself is confine.c. */
#define _GNU_SOURCE /* strsignal */
#include "childseat.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "childframe.h"
#include "confine.h"


#define REPLY_MAX 65536            /* longest reply text the host accepts */
#define ASK_MAX (64u << 20)        /* longest ask frame the child accepts */
#define OUTPUT_MAX (256u << 10)    /* agent output copied per request */
/* The oldest sample of a child's CPU clock a request starts from: 1/64 of
 * the budget, from 0.25 to 16 ms. */
#define CPU_SAMPLE_MIN_NS 250000u
#define CPU_SAMPLE_MAX_NS 16000000u
/* The host's answer buffer: the longest valid frame and one byte more, so
 * that bytes past a frame are always seen. */
#define ANSWER_CAP (AW_CF_ANSWER_HEADER + AW_CF_MSG_MAX + REPLY_MAX + 1)
/* Notifications waiting for the seat's next request at most; one more
 * goes out on its own and is waited for (a dead agent gets only
 * notifications until FINISH). */
#define QUEUE_MAX 32

/* A notification taken at once and sent with the next request. */
typedef struct queued {
    uint32_t seq;
    aw_req_kind kind;
    int day;
} queued;

typedef struct childseat {
    aw_seat base;
    aw_seat *inner;
    aw_childseat_opts opts;
    FILE *out;       /* the inner seat's output stream (see make) */
    char outbuf[4096];

    /* the running child */
    pid_t pid;
    /* Host ends, non-blocking: the ask pipe's write end, the answer pipe's
     * read end, what the agent prints (a socket). ask_rd is the ask pipe's
     * read end, which the host keeps open and never reads: a write to the
     * ask pipe of a dead child then fills the pipe instead of raising
     * SIGPIPE in the host, and the death shows as the end of the answer
     * pipe. */
    int ask_fd, ask_rd, ans_fd, outfd;
    aw_cf_sent sent;   /* what the child holds of the view */
    uint32_t seq;      /* of the last ask */
    char *rbuf;        /* answer bytes (ANSWER_CAP) */
    size_t rlen;
    aw_cf_answer ans;  /* the last complete answer (its text points into rbuf) */
    aw_buf obuf;   /* output of the current request */
    size_t odropped;
    bool lost;     /* the child was killed in this game: substitutes until the next begin */
    bool named;    /* the running child gave its name without a fault */
    char lost_msg[200];

    int agent;
    uint64_t agent_seed; /* the seat's own seed (seat.h), sent with INITIALIZE */
    aw_buf pkt;
    char name[65];
    char *read_dir; /* owned copy of opts.limits.read_dir */
    int budget_ms; /* of the current exchange */
    int at;        /* the frame in flight the deadlines count for (see moved_on) */
    /* The deadlines of the current exchange (see exchange_send): the
     * child's CPU time (its process clock, when the kernel gives it) and,
     * as the outer bound, the wall clock. */
    bool has_cpu_clock;
    clockid_t cpu_clock;    /* the child's process CPU-time clock */
    bool cpu_timed;         /* the current exchange has a CPU deadline */
    uint64_t cpu_deadline;  /* of cpu_clock: three budgets from the sample before the request */
    uint64_t cpu_check_at;  /* wall time before which cpu_deadline cannot be reached */
    uint64_t cpu_sample, cpu_sample_wall; /* the child's CPU clock as last read, and when (0: never) */
    uint64_t deadline;      /* of the wall clock: deadline_span from then */
    uint64_t deadline_span; /* 30x the budget (at least 3 s); without cpu_clock, twice the budget */
    int pending;   /* the request sent and not yet answered */
    /* Notifications taken at once (seat_request returned 0): their ask
     * frames wait in pkt, before the next request's, and go out with it
     * in one write; the child answers each (a frame per notification, in
     * order, before the request's answer). qdone of them are answered. */
    queued q[QUEUE_MAX];
    int nq, qdone;
    /* Their outcomes, for the driver (seat_late): late_next is the next
     * one to hand over. */
    aw_seat_late late[QUEUE_MAX];
    int nlate, late_next;
    /* A word shared with the child (MAP_SHARED): the sequence number of
     * the frame it works on, so that the host can tell which of the frames
     * sent together a dying or killed child was in. The child can write
     * anything there: it only decides which of its own calls a fault is
     * charged to. */
    uint32_t *progress;
    /* The CPU time of the last request (aw_childseat_call_cpu). */
    bool cpu_known;
    uint64_t cpu_ns;
} childseat;

static void set_fault(aw_seat_fault *f, aw_fault_kind k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_fault(aw_seat_fault *f, aw_fault_kind k, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    f->kind = k;
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
}

/* ---- the child ------------------------------------------------------------ */

/* The inner seat as the child runs it. */
typedef struct child_agent {
    aw_seat *inner;
    const char *name;  /* from begin; borrowed from the inner seat; NULL: it could not start */
    aw_seat_fault begin_fault;
    bool initialized;  /* an INITIALIZE has begun an instance (persistent children) */
} child_agent;

static void agent_begin(child_agent *a, int who, uint64_t seed)
{
    a->begin_fault = (aw_seat_fault){AW_FAULT_NONE, ""};
    a->name = a->inner->ops->begin(a->inner, who, seed, &a->begin_fault);
}

/* Asks the inner seat; fills the answer's parts. */
static void agent_answer(childseat *c, child_agent *a, aw_cf_view *view, int request, aw_seat_fault *f, const char **text,
                         size_t *len, int *target)
{
    *text = NULL;
    *len = 0;
    *target = AW_NO_AGENT;
    if (request == AW_CF_REQ_NAME) {
        *text = a->name;
        *len = a->name ? strlen(a->name) : 0;
        *f = a->begin_fault;
        return;
    }
    /* A persistent child starts a fresh agent instance at each game's
     * INITIALIZE (with the game's agent and the seed the frame brings), or
     * keeps one instance from its first INITIALIZE on. */
    if (request == AW_REQ_INITIALIZE && c->opts.persistent && (!c->opts.keep_instance || !a->initialized)) {
        agent_begin(a, view->v.agent, view->seed);
        a->initialized = true;
    }
    if (!a->name) {
        set_fault(f, AW_FAULT_LOST, "the agent failed to load at the start of the game");
        return;
    }
    aw_req_kind k = (aw_req_kind)request;
    aw_seat_reply r = {NULL, 0, AW_NO_AGENT};
    int rc = a->inner->ops->request(a->inner, k, &view->v, &view->set, &r, f);
    if (rc == AW_SEAT_PENDING && a->inner->ops->wait)
        rc = a->inner->ops->wait(a->inner, &r, f);
    if (rc != 0 && f->kind == AW_FAULT_NONE)
        f->kind = AW_FAULT_ERROR;
    if (rc != 0 || f->kind != AW_FAULT_NONE || !aw_req_needs_reply(k))
        return;
    if (aw_req_wants_text(k)) {
        *text = r.text;
        *len = r.text ? r.len : 0;
    } else {
        *target = r.target;
    }
}

/* The child's whole life; never returns. */
static void child_main(childseat *c, int rd, int wr, int outfd)
{
    signal(SIGPIPE, SIG_IGN); /* a write to a closed host pipe fails instead */
    /* Keep 0-2 harmless and out of the way of the kept descriptors. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    int *fds[3] = {&rd, &wr, &outfd};
    for (int i = 0; i < 3; i++)
        if (*fds[i] >= 0 && *fds[i] < 3)
            *fds[i] = fcntl(*fds[i], F_DUPFD_CLOEXEC, 3);
    /* (Under AddressSanitizer stderr stays the host's, for its reports.) */
    const int nstd = aw_confine_sanitized() ? 2 : 3;
    if (null >= 0)
        for (int fd = 0; fd < nstd; fd++)
            if (fd != null)
                dup2(null, fd);
    if (c->out && outfd >= 0) {
        /* The inner seat writes to c->out: point its descriptor at the host. */
        dup2(outfd, fileno(c->out));
        close(outfd);
        outfd = fileno(c->out);
    }
    int keep[3] = {rd, wr, outfd}; /* reads from the first only */
    aw_error err;
    aw_seat_fault confine_fault = {AW_FAULT_NONE, ""};
    /* Reads are fenced before child_prepare starts the threads the child
     * keeps (the sandbox's watchdog): Landlock binds only the threads a
     * fenced thread starts. The seccomp filter, installed last, covers every
     * thread. */
    aw_confine_opts co = {0};
    int crc = aw_confine_fence(c->opts.limits.read_dir, &co, &err);
    if (crc == 0) {
        co.watchdog_thread = c->opts.child_prepare && c->opts.child_prepare() == 1;
        crc = aw_confine(keep, outfd >= 0 ? 3 : 2, c->opts.limits.read_dir, c->opts.limits.memory_bytes, &co, &err);
    }
    if (crc < 0)
        set_fault(&confine_fault, AW_FAULT_LOST, "cannot confine the agent's process: %.400s", err.msg);

    /* From here on, everything runs under the filter (or, when confinement
     * failed, only the framing runs: the first answer says so and the child
     * exits). */
    child_agent a = {c->inner, NULL, {AW_FAULT_NONE, ""}, false};
    if (confine_fault.kind == AW_FAULT_NONE)
        agent_begin(&a, c->agent, c->agent_seed);
    aw_cf_view view;
    aw_cf_view_init(&view);
    view.talk = c->opts.talk;
    size_t cap = 65536, have = 0;
    char *in = aw_xmalloc(cap);
    aw_buf out;
    aw_buf_init(&out);
    bool chained = false;     /* the frame came with the one before it */
    struct timespec t_end = {0, 0}; /* when the last call ended (CPU time) */
    for (;;) {
        /* One ask frame: its header, then its payload. */
        aw_cf_ask_header h;
        size_t need = AW_CF_ASK_HEADER;
        for (;;) {
            if (have >= AW_CF_ASK_HEADER) {
                if (aw_cf_ask_header_read(in, &h) < 0 || h.len > ASK_MAX)
                    _exit(4);
                need = AW_CF_ASK_HEADER + h.len;
                if (need > cap) {
                    while (cap < need)
                        cap *= 2;
                    in = aw_xrealloc(in, cap);
                }
                if (have >= need)
                    break;
            }
            ssize_t n = read(rd, in + have, cap - have);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                _exit(0); /* the host closed the game */
            have += (size_t)n;
        }
        if (aw_cf_view_apply(&view, in + AW_CF_ASK_HEADER, h.len, &err) < 0)
            _exit(5);
        memmove(in, in + need, have - need);
        have -= need;
        if (c->progress)
            __atomic_store_n(c->progress, h.seq, __ATOMIC_RELAXED);

        aw_seat_fault f = {AW_FAULT_NONE, ""};
        if (confine_fault.kind != AW_FAULT_NONE) {
            aw_cf_answer_encode(&out, h.request, h.seq, &confine_fault, NULL, 0, AW_NO_AGENT);
            aw_write_all(wr, out.data, out.len);
            _exit(3);
        }
        if (c->opts.child_hook) {
            /* (what the hook writes comes after the answers before it) */
            if (out.len && aw_write_all(wr, out.data, out.len) < 0)
                _exit(0);
            aw_buf_clear(&out);
            chained = false;
            if (c->opts.child_hook(c->opts.hook_ud, h.request, h.seq, wr))
                continue;
        }
        const char *text;
        size_t len;
        int target;
        /* The agent's thread's CPU time on the request, for the host's
         * figures (what the budget counts; the sandbox's own reading may be
         * coarser for short calls). A frame that came with the one before
         * starts where that one's call ended (a system call less; it is
         * charged the reading of its own ask frame, nothing of another
         * call's). */
        struct timespec t0, t1;
        if (chained)
            t0 = t_end;
        else
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
        agent_answer(c, &a, &view, h.request, &f, &text, &len, &target);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
        t_end = t1;
        int64_t cpu = ((int64_t)t1.tv_sec - (int64_t)t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec);
        uint64_t cpu_us = cpu > 0 ? (uint64_t)cpu / 1000u : 0;
        aw_cf_answer_encode_cpu(&out, h.request, h.seq, &f, text, len, target,
                                cpu_us > UINT32_MAX ? UINT32_MAX : (uint32_t)cpu_us);
        /* A notification's answer that went well waits for the next
         * frame's when that frame is already here (the host sent them
         * together): the answers go back in one write. A fault goes at
         * once, so that a later death does not lose it. */
        bool notification = h.request > AW_REQ_NONE && h.request < AW_REQ_FINISH &&
                            !aw_req_needs_reply((aw_req_kind)h.request);
        chained = have > 0;
        if (notification && f.kind == AW_FAULT_NONE && have > 0)
            continue;
        /* The output first, then the answers in one write: the host wakes
         * up once, for the answer, and finds the output already there. */
        if (c->out)
            fflush(c->out);
        if (aw_write_all(wr, out.data, out.len) < 0)
            _exit(0);
        aw_buf_clear(&out);
    }
}

/* ---- the host ------------------------------------------------------------- */

/* Reaps the child (after SIGKILL unless it already died) and closes the
 * host's ends of the pipes. why (may be NULL) receives how it ended. */
static void stop_child(childseat *c, char *why, size_t whylen)
{
    if (c->pid > 0) {
        int st = 0;
        pid_t r = 0;
        /* A child that closed its pipes is usually dead already: give it
         * a moment (up to 1 s on a loaded machine) so that its own cause of
         * death can be reported. */
        for (int i = 0; i < 500 && (r = waitpid(c->pid, &st, WNOHANG)) == 0 && why; i++) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
        if (r == 0) {
            kill(c->pid, SIGKILL);
            while ((r = waitpid(c->pid, &st, 0)) < 0 && errno == EINTR)
                ;
            if (why)
                snprintf(why, whylen, "was still running and was killed");
        } else if (why && r == c->pid) {
            if (WIFSIGNALED(st))
                snprintf(why, whylen, "was killed by signal %d (%s%s)", WTERMSIG(st), strsignal(WTERMSIG(st)),
                         WTERMSIG(st) == SIGSYS ? ": a forbidden system call" : "");
            else
                snprintf(why, whylen, "exited with status %d", WEXITSTATUS(st));
        }
        c->pid = 0;
    }
    int *fds[4] = {&c->ask_fd, &c->ask_rd, &c->ans_fd, &c->outfd};
    for (int i = 0; i < 4; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
    aw_cf_sent_reset(&c->sent);
    c->rlen = 0;
}

/* Kills the child for good in this game and fills the fault. */
static bool child_cpu_ns(const childseat *c, uint64_t *ns);

/* The next outcome slot for queued notification i. */
static aw_seat_late *add_late(childseat *c, int i)
{
    if (c->nlate == QUEUE_MAX) { /* (the driver takes them at every answer) */
        memmove(c->late, c->late + c->late_next, (size_t)(c->nlate - c->late_next) * sizeof *c->late);
        c->nlate -= c->late_next;
        c->late_next = 0;
    }
    aw_seat_late *l = &c->late[c->nlate < QUEUE_MAX ? c->nlate++ : QUEUE_MAX - 1];
    l->kind = c->q[i].kind;
    l->day = c->q[i].day;
    l->cpu_known = false;
    l->cpu_ns = 0;
    l->fault.kind = AW_FAULT_NONE;
    l->fault.msg[0] = '\0';
    return l;
}

/* Which of the frames in flight a fault belongs to: a queued notification
 * (qdone..nq-1) or nq, the request. by_progress: the one the child said it
 * was working on (it died or was killed there); otherwise, or when it named
 * none of them, the first not yet answered. */
static int culprit(const childseat *c, bool by_progress)
{
    if (by_progress && c->progress) {
        uint32_t p = __atomic_load_n(c->progress, __ATOMIC_RELAXED);
        for (int i = c->qdone; i < c->nq; i++)
            if (c->q[i].seq == p)
                return i;
        if (p == c->seq)
            return c->nq;
    }
    return c->qdone;
}

static const char *frame_name(const childseat *c, int i)
{
    return aw_cf_request_name(i < c->nq ? (int)c->q[i].kind : c->pending);
}

/* Kills the child for good in this game. The fault is frame at's (built
 * from what); the notifications before it that were not answered went
 * well (a fault would have been sent at once), those after it and the
 * request are out of the game. Fills *f with the request's fault. */
static int lose(childseat *c, aw_seat_fault *f, aw_fault_kind kind, int at, const char *what)
{
    char why[160] = "";
    /* A child killed over time is charged the CPU time it had (from the
     * sample the request started from), read before it goes. */
    uint64_t cpu = 0;
    bool cpu_known = false;
    if (kind == AW_FAULT_TIMEOUT && c->pid > 0 && c->cpu_timed && child_cpu_ns(c, &cpu)) {
        cpu_known = true;
        cpu = cpu > c->cpu_sample ? cpu - c->cpu_sample : 0;
    }
    stop_child(c, kind == AW_FAULT_LOST ? why : NULL, sizeof why);
    if (kind == AW_FAULT_LOST)
        set_fault(f, kind, "%s: the agent's process %s", what, why);
    else
        set_fault(f, kind, "%s; the agent's process was killed", what);
    c->lost = true;
    snprintf(c->lost_msg, sizeof c->lost_msg, "%.190s", f->msg);
    for (int i = c->qdone; i < c->nq; i++) {
        aw_seat_late *l = add_late(c, i);
        if (i == at) {
            l->fault = *f;
            l->cpu_known = cpu_known;
            l->cpu_ns = cpu;
        } else if (i > at) {
            set_fault(&l->fault, AW_FAULT_LOST, "out of this game: %s", c->lost_msg);
        }
    }
    if (at == c->nq) {
        c->cpu_known = cpu_known;
        c->cpu_ns = cpu;
    } else if (c->nq) {
        set_fault(f, AW_FAULT_LOST, "out of this game: %s", c->lost_msg);
    }
    c->nq = c->qdone = 0;
    return -1;
}

/* lose() with the fault the framing reported, for frame at. */
static int lose_with(childseat *c, aw_seat_fault *f, int at)
{
    char what[sizeof f->msg];
    snprintf(what, sizeof what, "%s", f->msg);
    return lose(c, f, f->kind, at, what);
}

/* A new game: notifications of a game left unfinished are dropped, with
 * their outcomes (the child's view is sent whole again). */
static void drop_queue(childseat *c)
{
    c->nq = c->qdone = 0;
    c->nlate = c->late_next = 0;
    aw_buf_clear(&c->pkt);
}

static void flush_output(childseat *c)
{
    if (c->opts.output && c->obuf.len) {
        fwrite(c->obuf.data, 1, c->obuf.len, c->opts.output);
        if (c->odropped)
            fprintf(c->opts.output, "[Agent[%02d] %s] (%zu more bytes of output dropped)\n", c->agent, c->name,
                    c->odropped);
    }
    aw_buf_clear(&c->obuf);
    c->odropped = 0;
}

/* Reads whatever is there on one of the host's (non-blocking) ends;
 * returns bytes read, 0 at EOF, -1 when nothing was ready. */
static ssize_t take(int fd, char *buf, size_t cap)
{
    for (;;) {
        ssize_t n = read(fd, buf, cap);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return -1;
        return n < 0 ? 0 : n;
    }
}

static void take_output(childseat *c)
{
    char buf[16384];
    ssize_t n;
    while (c->outfd >= 0 && (n = take(c->outfd, buf, sizeof buf)) > 0) {
        size_t room = c->obuf.len < OUTPUT_MAX ? OUTPUT_MAX - c->obuf.len : 0;
        size_t k = (size_t)n < room ? (size_t)n : room;
        aw_buf_add(&c->obuf, buf, k);
        c->odropped += (size_t)n - k;
    }
}

/* Reads the child's CPU time into *ns; false when it cannot be read. 0 is
 * a reading like any other: a child that has not yet had a CPU since the
 * fork (a loaded machine) has used none. */
static bool child_cpu_ns(const childseat *c, uint64_t *ns)
{
    struct timespec ts;
    if (!c->has_cpu_clock || clock_gettime(c->cpu_clock, &ts) != 0)
        return false;
    *ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return true;
}

/* Whether the current exchange is past a deadline: writes why into m and
 * returns 1; otherwise returns 0 and sets *ms to how long to wait at most
 * before looking again. The child's CPU clock (a system call) is read only
 * once its deadline can have passed: the child runs the agent on one
 * thread, so its CPU time advances no faster than the wall clock (its
 * other thread, the sandbox's watchdog, mostly sleeps; what it spends only
 * brings the kill forward by as much). */
static void start_deadlines(childseat *c, uint64_t now);

/* With notifications sent along, each frame gets the deadlines a request
 * gets: when the child says (progress) that it works on a later frame of
 * the exchange than the one the deadlines count for, they start again from
 * now (a frame may so get more time than alone, never less; at most one
 * restart per frame). */
static void moved_on(childseat *c, uint64_t now)
{
    if (!c->progress || c->nq == 0)
        return;
    int at = culprit(c, true);
    if (at > c->at) {
        c->at = at;
        c->cpu_sample_wall = 0;
        start_deadlines(c, now);
    }
}

static int past_deadline(childseat *c, const char *what, char *m, size_t cap, int *ms)
{
    uint64_t now = aw_now_ns();
    moved_on(c, now);
    if (now >= c->deadline) {
        if (c->cpu_timed)
            snprintf(m, cap, "%s within %d ms (the wall-clock bound)", what, (int)(c->deadline_span / 1000000u));
        else
            snprintf(m, cap, "%s within %d ms (twice the budget)", what, 2 * c->budget_ms);
        return 1;
    }
    uint64_t wait = c->deadline - now;
    if (c->cpu_timed && now >= c->cpu_check_at) {
        uint64_t cpu = 0;
        bool read = child_cpu_ns(c, &cpu);
        if (read && cpu >= c->cpu_deadline) {
            snprintf(m, cap, "%s within %d ms of CPU time (three times the budget)", what, 3 * c->budget_ms);
            return 1;
        }
        uint64_t left = read ? c->cpu_deadline - cpu : 1000000u;
        c->cpu_check_at = now + (left > 1000000u ? left : 1000000u);
    }
    if (c->cpu_timed && c->cpu_check_at - now < wait)
        wait = c->cpu_check_at - now;
    *ms = (int)((wait + 999999) / 1000000);
    return 0;
}

/* Waits for the whole answer frame to the last ask until the deadline.
 * Reads before it polls: in a batch, most children have answered by the
 * time the host gets to them. */
static int await(childseat *c, int request, aw_seat_fault *f)
{
    for (;;) {
        /* The answers to the notifications sent with the request, in
         * order, then the request's. */
        while (c->rlen) {
            bool notice = c->qdone < c->nq;
            int want = notice ? (int)c->q[c->qdone].kind : request;
            uint32_t seq = notice ? c->q[c->qdone].seq : c->seq;
            long n = aw_cf_answer_parse(c->rbuf, c->rlen, want, seq, REPLY_MAX, &c->ans, f);
            if (n < 0)
                return lose_with(c, f, c->qdone);
            if (n == 0)
                break;
            if (notice) {
                aw_seat_late *l = add_late(c, c->qdone++);
                l->fault = c->ans.fault;
                l->cpu_known = true;
                l->cpu_ns = (uint64_t)c->ans.cpu_us * 1000u;
                memmove(c->rbuf, c->rbuf + n, c->rlen - (size_t)n);
                c->rlen -= (size_t)n;
                continue;
            }
            if ((size_t)n != c->rlen) {
                char m[96];
                snprintf(m, sizeof m, "%s: unexpected bytes on the wire after the answer", frame_name(c, c->nq));
                return lose(c, f, AW_FAULT_REPLY, c->nq, m);
            }
            c->nq = c->qdone = 0;
            return 0;
        }
        ssize_t n = take(c->ans_fd, c->rbuf + c->rlen, ANSWER_CAP - c->rlen);
        if (n == 0) {
            char m[64];
            int at = culprit(c, true);
            snprintf(m, sizeof m, "%s: connection closed", frame_name(c, at));
            return lose(c, f, AW_FAULT_LOST, at, m);
        }
        if (n > 0) {
            c->rlen += (size_t)n;
            continue;
        }
        char why[160], late[200];
        int ms;
        if (past_deadline(c, "answer", why, sizeof why, &ms)) {
            int at = culprit(c, true);
            snprintf(late, sizeof late, "%s: no %s", frame_name(c, at), why);
            return lose(c, f, AW_FAULT_TIMEOUT, at, late);
        }
        struct pollfd p[2] = {{c->ans_fd, POLLIN, 0}, {c->outfd, POLLIN, 0}};
        int pr = poll(p, c->outfd >= 0 ? 2 : 1, ms);
        if (pr < 0 && errno != EINTR)
            return lose(c, f, AW_FAULT_LOST, culprit(c, true), "poll failed");
        if (pr > 0 && c->outfd >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
            take_output(c);
    }
}

/* Sends one ask frame, within the deadline. */
static int send_frame(childseat *c, const aw_buf *b, aw_seat_fault *f)
{
    size_t off = 0;
    while (off < b->len) {
        ssize_t n = write(c->ask_fd, b->data + off, b->len - off);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return lose(c, f, AW_FAULT_LOST, culprit(c, false), "the request could not be sent");
        char why[160];
        int ms;
        if (past_deadline(c, "reading", why, sizeof why, &ms))
            return lose(c, f, AW_FAULT_TIMEOUT, culprit(c, false), "the agent's process stopped reading");
        /* The ask pipe has room again, or the child closed its end of the
         * answer pipe (it died: POLLHUP, which poll reports unasked). */
        struct pollfd p[3] = {{c->ask_fd, POLLOUT, 0}, {c->ans_fd, 0, 0}, {c->outfd, POLLIN, 0}};
        if (poll(p, c->outfd >= 0 ? 3 : 2, ms) > 0) {
            if (p[1].revents & (POLLHUP | POLLERR))
                return lose(c, f, AW_FAULT_LOST, culprit(c, false), "the request could not be sent");
            if (c->outfd >= 0 && (p[2].revents & POLLIN))
                take_output(c);
        }
    }
    return 0;
}

/* One exchange, in two halves so that a batch's requests can all be on
 * their way before the first answer is awaited: exchange_send writes the
 * ask frame (and starts the deadline), exchange_finish awaits the answer
 * frame. exchange_finish returns 0, 1 when the inner seat failed (the child
 * is fine; *f says why), or -1 when the child was lost. */
static int exchange_send(childseat *c, int request, const aw_info *info, const aw_settings *set, int budget_ms,
                         aw_seat_fault *f)
{
    /* The sandbox in the child counts the agent's CPU time (docs/sandbox.md),
     * so the host does too: on a loaded machine a child that waits for a
     * CPU is not killed for it. It gets three times the budget of CPU
     * time, and 30x the budget (at least 3 s) of wall-clock time: both past
     * the sandbox's own last resort (2x the budget of CPU time, 20x and at
     * least 2 s of wall-clock time), so that a call the sandbox can stop is
     * always the sandbox's to stop and to classify (a time-out that leaves
     * the child running), never a race between its timer and the host's
     * (which kills the child: lost for the rest of the game). Only a child
     * that does not run (or a machine so loaded that it gets a thirtieth of
     * a CPU) meets the wall-clock one. */
    c->budget_ms = budget_ms;
    c->at = 0;
    start_deadlines(c, aw_now_ns());
    c->cpu_known = false;
    /* Whatever the child sent since its last answer is in the buffer or
     * the pipe: it cannot carry this ask's sequence number, so await
     * finds it out of protocol. */
    c->seq++;
    c->pending = request;
    if (!c->nq)
        aw_buf_clear(&c->pkt);
    aw_cf_ask_encode(&c->sent, request, c->seq, info, set, request == AW_REQ_INITIALIZE, c->agent_seed, &c->pkt);
    return send_frame(c, &c->pkt, f);
}

/* The deadlines of the exchange's current frame, from now. */
static void start_deadlines(childseat *c, uint64_t now)
{
    uint64_t budget_ns = (uint64_t)c->budget_ms * 1000000u;
    /* Reading the child's CPU clock is a system call: the count starts at
     * a sample at most 1/64 of the budget old (the child may be charged
     * that much of what it did before the request, as the sandbox does:
     * it gets at least 3 - 1/64 budgets of CPU time, and its sandbox stops
     * the agent at one). */
    uint64_t sample_ns = budget_ns / 64;
    if (sample_ns < CPU_SAMPLE_MIN_NS)
        sample_ns = CPU_SAMPLE_MIN_NS;
    else if (sample_ns > CPU_SAMPLE_MAX_NS)
        sample_ns = CPU_SAMPLE_MAX_NS;
    if (!c->cpu_sample_wall || now - c->cpu_sample_wall >= sample_ns)
        c->cpu_sample_wall = child_cpu_ns(c, &c->cpu_sample) ? now : 0;
    c->cpu_timed = c->cpu_sample_wall != 0;
    c->deadline_span = c->cpu_timed ? (budget_ns * 30 > 3000000000u ? budget_ns * 30 : 3000000000u) : budget_ns * 2;
    c->deadline = now + c->deadline_span;
    c->cpu_deadline = c->cpu_sample + budget_ns * 3;
    c->cpu_check_at = c->cpu_sample_wall + budget_ns * 3;
}

static int exchange_finish(childseat *c, int request, aw_seat_fault *f)
{
    if (await(c, request, f) < 0)
        return -1;
    c->rlen = 0; /* the answer's text stays readable until the next exchange */
    c->cpu_known = true;
    c->cpu_ns = (uint64_t)c->ans.cpu_us * 1000u;
    take_output(c);
    if (c->ans.fault.kind != AW_FAULT_NONE) {
        *f = c->ans.fault;
        return 1; /* the inner seat failed; the child is fine */
    }
    return 0;
}

static int exchange(childseat *c, int request, const aw_info *info, const aw_settings *set, int budget_ms,
                    aw_seat_fault *f)
{
    if (exchange_send(c, request, info, set, budget_ms, f) < 0)
        return -1;
    return exchange_finish(c, request, f);
}

/* Makes the pipe fds (close-on-exec); -1 with *f filled on failure. */
static int make_pipe(int fds[2], aw_seat_fault *f)
{
    if (pipe2(fds, O_CLOEXEC) == 0)
        return 0;
    set_fault(f, AW_FAULT_LOST, "pipe: %s", strerror(errno));
    return -1;
}

static void close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* Two pipes carry the frames (a pipe's round trip costs less than half a
 * Unix socket's: docs/isolation.md), a socketpair what the agent prints. */
static int spawn(childseat *c, aw_seat_fault *f)
{
    int fds[6] = {-1, -1, -1, -1, -1, -1}; /* ask pipe, answer pipe, output socketpair */
    int *ask = fds, *ans = fds + 2, *o = fds + 4;
    if (make_pipe(ask, f) < 0 || make_pipe(ans, f) < 0) {
        close_all(fds, 6);
        return -1;
    }
    if (c->out && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, o) != 0) {
        set_fault(f, AW_FAULT_LOST, "socketpair: %s", strerror(errno));
        close_all(fds, 6);
        return -1;
    }
    pid_t parent = getpid();
    fflush(NULL); /* nothing buffered in the host gets written twice */
    pid_t pid = fork();
    if (pid < 0) {
        set_fault(f, AW_FAULT_LOST, "fork: %s", strerror(errno));
        close_all(fds, 6);
        return -1;
    }
    if (pid == 0) {
        /* Die with the host. */
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (getppid() != parent)
            _exit(0);
        /* The host's ends: the ask pipe's write end must go, or the child
         * would never see the end of it. */
        close(ask[1]);
        close(ans[0]);
        if (o[0] >= 0)
            close(o[0]);
        child_main(c, ask[0], ans[1], o[1]);
        _exit(0);
    }
    close(ans[1]);
    if (o[1] >= 0)
        close(o[1]);
    for (int i = 0; i < 3; i++) {
        int fd = i == 0 ? ask[1] : i == 1 ? ans[0] : o[0];
        if (fd >= 0)
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    }
    c->pid = pid;
    c->has_cpu_clock = clock_getcpuclockid(pid, &c->cpu_clock) == 0;
    c->cpu_sample_wall = 0;
    c->ask_fd = ask[1];
    c->ask_rd = ask[0];
    c->ans_fd = ans[0];
    c->outfd = o[0];
    aw_cf_sent_reset(&c->sent);
    c->rlen = 0;
    return 0;
}

static int budget_of(const childseat *c, const aw_settings *set)
{
    if (c->opts.limits.budget_ms > 0)
        return c->opts.limits.budget_ms;
    if (set && set->time_limit_ms > 0)
        return set->time_limit_ms;
    return 1000;
}

/* Forks a child and asks its name (which starts the agent). Returns the
 * name, or NULL with *f filled: the agent is out (lost) until the next
 * start. */
static const char *start_child(childseat *c, aw_seat_fault *f)
{
    c->lost = false;
    c->named = false;
    snprintf(c->name, sizeof c->name, "Agent[%02d]", c->agent);
    if (spawn(c, f) < 0) {
        c->lost = true;
        snprintf(c->lost_msg, sizeof c->lost_msg, "%.190s", f->msg);
        return NULL;
    }
    /* NAME covers starting the agent (a new Lua state, the protocol
     * library, the agent's file) and getName: at least 5 s, since a loaded
     * machine can make the start slow while no agent call is running yet. */
    int start_budget = 2 * budget_of(c, NULL) < 2500 ? 2500 : 2 * budget_of(c, NULL);
    aw_seat_fault ef = {AW_FAULT_NONE, ""};
    int rc = exchange(c, AW_CF_REQ_NAME, NULL, NULL, start_budget, &ef);
    flush_output(c);
    if (rc < 0) {
        *f = ef;
        return NULL;
    }
    const char *text = c->ans.text;
    size_t len = c->ans.len;
    if (!text || !len) {
        /* The inner seat could not start (its fault says why): the agent
         * sits out this game. */
        *f = ef;
        if (f->kind == AW_FAULT_NONE)
            set_fault(f, AW_FAULT_REPLY, "NAME: empty name");
        stop_child(c, NULL, 0);
        c->lost = true;
        snprintf(c->lost_msg, sizeof c->lost_msg, "the agent failed to load at the start of the game");
        return NULL;
    }
    if (len > sizeof c->name - 1)
        len = sizeof c->name - 1;
    memcpy(c->name, text, len);
    c->name[len] = '\0';
    if (ef.kind != AW_FAULT_NONE)
        *f = ef; /* getName failed; the agent still plays */
    c->named = ef.kind == AW_FAULT_NONE;
    return c->name;
}

static const char *seat_begin(aw_seat *base, int agent, uint64_t agent_seed, aw_seat_fault *f)
{
    childseat *c = (childseat *)base;
    c->agent = agent;
    c->agent_seed = agent_seed;
    drop_queue(c);
    if (c->opts.persistent && c->pid > 0 && !c->lost) {
        /* The child plays on: the next frame (INITIALIZE) carries the whole
         * view with this game's agent and seed, and starts the game's
         * agent instance in the child. */
        aw_cf_sent_reset(&c->sent);
        if (!c->named)
            snprintf(c->name, sizeof c->name, "Agent[%02d]", agent);
        return c->name;
    }
    stop_child(c, NULL, 0);
    return start_child(c, f);
}

int aw_childseat_ready(aw_seat *s, bool fresh, aw_seat_fault *f)
{
    childseat *c = (childseat *)s;
    drop_queue(c);
    if (c->pid > 0 && !c->lost && !fresh)
        return 0;
    stop_child(c, NULL, 0);
    /* The child's first instance starts with no game's seed; each game's
     * INITIALIZE brings its own. */
    c->agent_seed = 0;
    return start_child(c, f) ? 0 : -1;
}

/* The request goes out at once and is answered later (seat_wait), so the
 * children of a batch (votes, divinations, notifications) work at the same
 * time. */
static int seat_request(aw_seat *base, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                        aw_seat_reply *reply, aw_seat_fault *f)
{
    childseat *c = (childseat *)base;
    (void)reply;
    c->cpu_known = false;
    if (c->lost || c->pid <= 0) {
        set_fault(f, AW_FAULT_LOST, "out of this game: %s", c->lost_msg);
        return -1;
    }
    /* A notification needs no answer: it is taken at once and goes with
     * the next request, in the same write (FINISH, a game's last request,
     * goes at once and is waited for). Its outcome comes with that
     * request's answer (seat_late). */
    if (!aw_req_needs_reply(kind) && kind != AW_REQ_FINISH && !c->opts.wait_notifications && c->nq < QUEUE_MAX) {
        if (!c->nq)
            aw_buf_clear(&c->pkt);
        c->seq++;
        c->q[c->nq++] = (queued){c->seq, kind, info ? info->day : 0};
        aw_cf_ask_encode(&c->sent, kind, c->seq, info, set, kind == AW_REQ_INITIALIZE, c->agent_seed, &c->pkt);
        return 0;
    }
    if (exchange_send(c, kind, info, set, budget_of(c, set), f) < 0) {
        flush_output(c);
        return -1;
    }
    return AW_SEAT_PENDING;
}

static int seat_wait(aw_seat *base, aw_seat_reply *reply, aw_seat_fault *f)
{
    childseat *c = (childseat *)base;
    aw_req_kind kind = (aw_req_kind)c->pending;
    int rc = exchange_finish(c, kind, f);
    flush_output(c);
    if (rc != 0)
        return -1;
    if (!aw_req_needs_reply(kind))
        return 0;
    /* The text is borrowed from the answer buffer until the next call. */
    reply->text = c->ans.text;
    reply->len = c->ans.len;
    reply->target = c->ans.target;
    return 0;
}

static int seat_late(aw_seat *base, aw_seat_late *out)
{
    childseat *c = (childseat *)base;
    if (c->late_next >= c->nlate) {
        c->nlate = c->late_next = 0;
        return 0;
    }
    *out = c->late[c->late_next++];
    return 1;
}

static void seat_free(aw_seat *base)
{
    childseat *c = (childseat *)base;
    stop_child(c, NULL, 0);
    if (c->progress)
        munmap(c->progress, sizeof *c->progress);
    free(c->rbuf);
    aw_buf_free(&c->obuf);
    aw_buf_free(&c->pkt);
    if (c->inner)
        c->inner->ops->free(c->inner);
    if (c->out)
        fclose(c->out);
    free(c->read_dir);
    free(c);
}

/* The inner seat in the host never plays, so its version is the one every
 * child starts from. */
static const char *seat_version(aw_seat *base)
{
    childseat *c = (childseat *)base;
    return c->inner->ops->version ? c->inner->ops->version(c->inner) : NULL;
}

static const aw_seat_ops child_ops = {
    .begin = seat_begin,
    .request = seat_request,
    .version = seat_version,
    .free = seat_free,
    .wait = seat_wait,
    .late = seat_late,
};

aw_seat *aw_childseat_new(aw_childseat_make make, void *make_ud, const aw_childseat_opts *opts, aw_error *err)
{
    childseat *c = aw_xcalloc(1, sizeof *c);
    c->base.ops = &child_ops;
    c->ask_fd = c->ask_rd = c->ans_fd = c->outfd = -1;
    if (opts)
        c->opts = *opts;
    if (c->opts.limits.read_dir)
        c->opts.limits.read_dir = c->read_dir = aw_xstrdup(c->opts.limits.read_dir);
    c->rbuf = aw_xmalloc(ANSWER_CAP);
    /* (without it, a fault is charged to the first frame not answered) */
    void *pg = mmap(NULL, sizeof *c->progress, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    c->progress = pg == MAP_FAILED ? NULL : pg;
    aw_buf_init(&c->obuf);
    aw_buf_init(&c->pkt);
    if (c->opts.output) {
        /* The inner seat's stream: /dev/null in the host (nothing is printed
         * here), the output socket in the child. A fixed buffer means stdio
         * never needs fstat, which the filter does not allow. */
        c->out = fopen("/dev/null", "we");
        if (!c->out) {
            aw_fail(err, AW_EIO, "cannot open /dev/null: %s", strerror(errno));
            seat_free(&c->base);
            return NULL;
        }
        setvbuf(c->out, c->outbuf, _IOFBF, sizeof c->outbuf);
    }
    c->inner = make(make_ud, c->out, err);
    if (!c->inner) {
        seat_free(&c->base);
        return NULL;
    }
    return &c->base;
}

pid_t aw_childseat_pid(const aw_seat *s)
{
    return ((const childseat *)s)->pid;
}

bool aw_childseat_call_cpu(const aw_seat *s, uint64_t *ns)
{
    const childseat *c = (const childseat *)s;
    if (!c->cpu_known)
        return false;
    *ns = c->cpu_ns;
    return true;
}
