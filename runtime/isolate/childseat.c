/* childseat: an agent in a confined child process that speaks the official
 * wire format (see childseat.h). The host half encodes packets, enforces the
 * deadline with poll and judges what comes back; the child half decodes
 * packets into a client-side gameInfo and calls the inner seat.
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
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "confine.h"
#include "wire.h"
#include "wireagent.h"
#include "wireseat.h"


#define REPLY_MAX_LINE 65536        /* longest reply line the host accepts */
#define PACKET_MAX_LINE (64u << 20) /* longest packet the child accepts */
#define OUTPUT_MAX (256u << 10)     /* agent output copied per request */
#define REPORT_MAGIC 0x50525741u    /* "AWRP" */

/* The child's report after each request. */
typedef struct report {
    uint32_t magic;
    int32_t request;
    int32_t fault; /* aw_fault_kind */
    uint32_t msg_len;
} report;

typedef struct childseat {
    aw_seat base;
    aw_seat *inner;
    aw_childseat_opts opts;
    aw_settings base_set;
    FILE *out;       /* the inner seat's output stream (see make) */
    char outbuf[4096];

    /* the running child */
    pid_t pid;
    int wire, rep, outfd; /* host ends */
    aw_wire_seat ws;      /* the wire's framing (packets out, the reply line in) */
    aw_buf rbuf;   /* report bytes */
    aw_buf obuf;   /* output of the current request */
    size_t odropped;
    bool lost;     /* the child was killed in this game: substitutes until the next begin */
    bool named;    /* the running child gave its name without a fault */
    char lost_msg[200];

    int agent;
    uint64_t agent_seed; /* the seat's own seed (seat.h), sent as randomSeed */
    aw_buf pkt;
    char name[65];
    char *read_dir; /* owned copy of opts.read_dir */
    int budget_ms; /* of the current exchange */
    /* The deadlines of the current exchange (see exchange_send): the
     * child's CPU time (its process clock, when the kernel gives it) and,
     * as the outer bound, the wall clock. */
    bool has_cpu_clock;
    clockid_t cpu_clock;    /* the child's process CPU-time clock */
    bool cpu_timed;         /* the current exchange has a CPU deadline */
    uint64_t cpu_deadline;  /* of cpu_clock: twice the budget from when the packet was sent */
    uint64_t deadline;      /* of the wall clock: deadline_span from then */
    uint64_t deadline_span; /* 20x the budget (at least 2 s); without cpu_clock, twice the budget */
    aw_req_kind pending; /* the request sent and not yet answered */
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

static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

static int send_report(int fd, int request, const aw_seat_fault *f)
{
    size_t len = f->kind == AW_FAULT_NONE ? 0 : strnlen(f->msg, sizeof f->msg);
    report r = {REPORT_MAGIC, request, (int32_t)f->kind, (uint32_t)len};
    char buf[sizeof r + sizeof f->msg];
    memcpy(buf, &r, sizeof r);
    memcpy(buf + sizeof r, f->msg, len);
    return write_all(fd, buf, sizeof r + len);
}

/* The child's whole life; never returns. */
static void child_main(childseat *c, int wire, int rep, int outfd)
{
    signal(SIGPIPE, SIG_IGN); /* a write to a closed host socket fails instead */
    /* Keep 0-2 harmless and out of the way of the kept descriptors. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    int *fds[3] = {&wire, &rep, &outfd};
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
    int keep[3] = {wire, rep, outfd};
    aw_error err;
    if (aw_confine(keep, outfd >= 0 ? 3 : 2, c->opts.read_dir, c->opts.memory_bytes, &err) < 0) {
        aw_seat_fault f;
        set_fault(&f, AW_FAULT_LOST, "cannot confine the agent's process: %.400s", err.msg);
        write_all(wire, "\n", 1);
        send_report(rep, AW_WIRE_REQ_NAME, &f);
        _exit(3);
    }

    /* From here on, everything runs under the filter. */
    aw_wire_agent wa;
    aw_wire_agent_init(&wa, c->inner, &c->base_set);
    /* A persistent child starts a fresh agent instance at each game's
     * INITIALIZE, or keeps one instance from its first INITIALIZE on. */
    wa.begin_at_initialize = c->opts.persistent && !c->opts.keep_instance;
    wa.begin_at_first_initialize = c->opts.persistent && c->opts.keep_instance;
    wa.validate = c->opts.validate;
    wa.free_parsed = c->opts.free_parsed;
    aw_wire_agent_begin(&wa, c->agent, c->agent_seed);
    aw_wire_reader in;
    aw_wire_reader_init(&in, PACKET_MAX_LINE);
    aw_buf out;
    aw_buf_init(&out);
    char buf[65536];
    for (;;) {
        const char *line;
        size_t len;
        int rc;
        while ((rc = aw_wire_reader_next(&in, &line, &len)) == 0) {
            ssize_t n = read(wire, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                _exit(0); /* the host closed the game */
            aw_wire_reader_feed(&in, buf, (size_t)n);
        }
        if (rc < 0)
            _exit(4);
        int request = aw_wire_agent_take(&wa, line, len, &err);
        if (request < 0)
            _exit(5);

        aw_seat_fault f = {AW_FAULT_NONE, ""};
        aw_buf_clear(&out);
        bool reply = false;
        if (!(c->opts.child_hook && c->opts.child_hook(c->opts.hook_ud, request, wire, rep)))
            aw_wire_agent_answer(&wa, request, &out, &reply, &f);
        /* Output, then the report, then the reply: the host wakes up once,
         * for the reply, and finds the rest already there. */
        if (c->out)
            fflush(c->out);
        if (send_report(rep, request, &f) < 0)
            _exit(0);
        if (reply) {
            aw_buf_addc(&out, '\n');
            if (write_all(wire, out.data, out.len) < 0)
                _exit(0);
        }
    }
}

/* ---- the host ------------------------------------------------------------- */

/* Reaps the child (after SIGKILL unless it already died) and closes the
 * host's sockets. why (may be NULL) receives how it ended. */
static void stop_child(childseat *c, char *why, size_t whylen)
{
    if (c->pid > 0) {
        int st = 0;
        pid_t r = 0;
        /* A child that closed its sockets is usually dead already: give it
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
    if (c->wire >= 0)
        close(c->wire);
    if (c->rep >= 0)
        close(c->rep);
    if (c->outfd >= 0)
        close(c->outfd);
    c->wire = c->rep = c->outfd = -1;
    aw_wire_seat_reset(&c->ws, c->agent_seed);
    aw_buf_clear(&c->rbuf);
}

/* Kills the child for good in this game and fills the fault. */
static int lose(childseat *c, aw_seat_fault *f, aw_fault_kind kind, const char *what)
{
    char why[160] = "";
    stop_child(c, kind == AW_FAULT_LOST ? why : NULL, sizeof why);
    if (kind == AW_FAULT_LOST)
        set_fault(f, kind, "%s: the agent's process %s", what, why);
    else
        set_fault(f, kind, "%s; the agent's process was killed", what);
    c->lost = true;
    snprintf(c->lost_msg, sizeof c->lost_msg, "%.190s", f->msg);
    return -1;
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

/* Reads whatever is there on one socket; returns bytes read, 0 at EOF, -1
 * when nothing was ready. */
static ssize_t take(int fd, char *buf, size_t cap)
{
    for (;;) {
        ssize_t n = recv(fd, buf, cap, MSG_DONTWAIT);
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

enum { WANT_LINE, WANT_REPORT };

/* lose() with the fault the framing reported. */
static int lose_with(childseat *c, aw_seat_fault *f)
{
    char what[sizeof f->msg];
    snprintf(what, sizeof what, "%s", f->msg);
    return lose(c, f, f->kind, what);
}

/* The child's CPU time, or 0 when it cannot be read. */
static uint64_t child_cpu_ns(const childseat *c)
{
    struct timespec ts;
    if (!c->has_cpu_clock || clock_gettime(c->cpu_clock, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether the current exchange is past a deadline: writes why into m and
 * returns 1; otherwise returns 0 and sets *ms to how long to wait at most
 * before looking again (the child's CPU time advances no faster than the
 * wall clock: it is one thread). */
static int past_deadline(childseat *c, const char *what, char *m, size_t cap, int *ms)
{
    uint64_t now = aw_now_ns();
    if (now >= c->deadline) {
        if (c->cpu_timed)
            snprintf(m, cap, "%s within %d ms (the wall-clock bound)", what,
                     (int)(c->deadline_span / 1000000u));
        else
            snprintf(m, cap, "%s within %d ms (twice the budget)", what, 2 * c->budget_ms);
        return 1;
    }
    uint64_t wait = c->deadline - now, cpu = c->cpu_timed ? child_cpu_ns(c) : 0;
    if (cpu) {
        if (cpu >= c->cpu_deadline) {
            snprintf(m, cap, "%s within %d ms of CPU time (twice the budget)", what, 2 * c->budget_ms);
            return 1;
        }
        if (c->cpu_deadline - cpu < wait)
            wait = c->cpu_deadline - cpu;
    }
    *ms = (int)((wait + 999999) / 1000000);
    return 0;
}

/* Waits for the reply line or a whole report frame until the deadline. */
static int await(childseat *c, int want, int request, aw_seat_fault *f)
{
    char buf[65536];
    const char *rname = aw_wire_request_name(request);
    for (;;) {
        if (want == WANT_LINE) {
            if (!aw_wire_seat_awaiting(&c->ws))
                return 0;
        } else if (c->rbuf.len >= sizeof(report)) {
            report r;
            memcpy(&r, c->rbuf.data, sizeof r);
            if (r.magic != REPORT_MAGIC || r.request != request || r.fault < AW_FAULT_NONE || r.fault > AW_FAULT_LOST ||
                r.msg_len >= sizeof f->msg || (r.fault == AW_FAULT_NONE && r.msg_len))
                return lose(c, f, AW_FAULT_REPLY, "garbage on the report channel");
            if (c->rbuf.len >= sizeof r + r.msg_len) {
                if (c->rbuf.len > sizeof r + r.msg_len)
                    return lose(c, f, AW_FAULT_REPLY, "unexpected bytes on the report channel");
                f->kind = (aw_fault_kind)r.fault;
                memcpy(f->msg, c->rbuf.data + sizeof r, r.msg_len);
                f->msg[r.msg_len] = '\0';
                /* Only printable bytes reach the log. */
                for (char *m = f->msg; *m; m++)
                    if ((unsigned char)*m < 0x20 || *m == 0x7f)
                        *m = '?';
                aw_buf_clear(&c->rbuf);
                return 0;
            }
        }
        char why[120], late[160];
        int ms;
        if (past_deadline(c, want == WANT_LINE ? "answer" : "report", why, sizeof why, &ms)) {
            snprintf(late, sizeof late, "%s: no %s", rname, why);
            return lose(c, f, AW_FAULT_TIMEOUT, late);
        }
        struct pollfd p[3] = {{c->wire, POLLIN, 0}, {c->rep, POLLIN, 0}, {c->outfd, POLLIN, 0}};
        int pr = poll(p, c->outfd >= 0 ? 3 : 2, ms);
        if (pr < 0 && errno != EINTR)
            return lose(c, f, AW_FAULT_LOST, "poll failed");
        if (pr <= 0)
            continue;
        if (c->outfd >= 0 && (p[2].revents & (POLLIN | POLLHUP | POLLERR)))
            take_output(c);
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = take(c->wire, buf, sizeof buf);
            if (n == 0) {
                char m[64];
                snprintf(m, sizeof m, "%s: connection closed", rname);
                return lose(c, f, AW_FAULT_LOST, m);
            }
            if (n > 0 && aw_wire_seat_feed(&c->ws, buf, (size_t)n, f) < 0)
                return lose_with(c, f);
        }
        if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = take(c->rep, buf, sizeof buf);
            if (n == 0) {
                char m[64];
                snprintf(m, sizeof m, "%s: connection closed", rname);
                return lose(c, f, AW_FAULT_LOST, m);
            }
            if (n > 0) {
                aw_buf_add(&c->rbuf, buf, (size_t)n);
                if (c->rbuf.len > sizeof(report) + sizeof f->msg)
                    return lose(c, f, AW_FAULT_REPLY, "flood on the report channel");
            }
        }
    }
}

/* Sends one packet line, within the deadline. */
static int send_line(childseat *c, const aw_buf *b, aw_seat_fault *f)
{
    size_t off = 0;
    while (off < b->len) {
        ssize_t n = send(c->wire, b->data + off, b->len - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return lose(c, f, AW_FAULT_LOST, "the packet could not be sent");
        char why[120];
        int ms;
        if (past_deadline(c, "reading", why, sizeof why, &ms))
            return lose(c, f, AW_FAULT_TIMEOUT, "the agent's process stopped reading");
        struct pollfd p[2] = {{c->wire, POLLOUT, 0}, {c->outfd, POLLIN, 0}};
        if (poll(p, c->outfd >= 0 ? 2 : 1, ms) > 0 &&
            c->outfd >= 0 && (p[1].revents & POLLIN))
            take_output(c);
    }
    return 0;
}

/* One exchange: the packet, the reply line if the request has one, the
 * report. */
/* One exchange, in two halves so that a batch's requests can all be on
 * their way before the first answer is awaited: exchange_send writes the
 * packet (and starts the deadline), exchange_finish awaits the reply line
 * if the request has one, then the report. exchange_finish returns 0, 1
 * when the inner seat failed (the child is fine; *f says why), or -1 when
 * the child was lost. */
static int exchange_send(childseat *c, int request, const aw_info *info, const aw_settings *set, int budget_ms,
                         aw_seat_fault *f)
{
    /* The sandbox in the child counts the agent's CPU time (docs/sandbox.md),
     * so the host does too: on a loaded machine a child that waits for a
     * CPU is not killed for it. It gets twice the budget of CPU time, and
     * 20x the budget (at least 2 s) of wall-clock time, as the sandbox's
     * own last resort: only a child that does not run (or a machine so
     * loaded that it gets a tenth of a CPU) meets that one. */
    c->budget_ms = budget_ms;
    uint64_t budget_ns = (uint64_t)budget_ms * 1000000u, cpu = child_cpu_ns(c);
    c->cpu_timed = cpu != 0;
    c->deadline_span = cpu ? (budget_ns * 20 > 2000000000u ? budget_ns * 20 : 2000000000u) : budget_ns * 2;
    c->deadline = aw_now_ns() + c->deadline_span;
    c->cpu_deadline = cpu + budget_ns * 2;
    /* Bytes the child sent since the last exchange are out of protocol; a
     * child that died in between shows as the end of the stream. */
    struct pollfd p = {c->wire, POLLIN, 0};
    if (poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
        char one;
        ssize_t n = recv(c->wire, &one, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n > 0)
            return lose(c, f, AW_FAULT_REPLY, "unexpected bytes on the wire (a reply nobody asked for)");
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            char m[64];
            snprintf(m, sizeof m, "%s: connection closed", aw_wire_request_name(request));
            return lose(c, f, AW_FAULT_LOST, m);
        }
    }
    aw_buf_clear(&c->pkt);
    if (aw_wire_seat_send(&c->ws, request, info, set, &c->pkt, f) < 0)
        return f->kind == AW_FAULT_REPLY ? lose_with(c, f) : -1;
    return send_line(c, &c->pkt, f);
}

static int exchange_finish(childseat *c, int request, aw_seat_fault *f)
{
    if (aw_wire_request_has_reply(request) && await(c, WANT_LINE, request, f) < 0)
        return -1;
    aw_seat_fault rf = {AW_FAULT_NONE, ""};
    if (await(c, WANT_REPORT, request, &rf) < 0) {
        *f = rf;
        return -1;
    }
    take_output(c);
    if (rf.kind != AW_FAULT_NONE) {
        *f = rf;
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

static int spawn(childseat *c, aw_seat_fault *f)
{
    int w[2], r[2], o[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, w) != 0) {
        set_fault(f, AW_FAULT_LOST, "socketpair: %s", strerror(errno));
        return -1;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, r) != 0) {
        set_fault(f, AW_FAULT_LOST, "socketpair: %s", strerror(errno));
        close(w[0]);
        close(w[1]);
        return -1;
    }
    if (c->out && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, o) != 0) {
        set_fault(f, AW_FAULT_LOST, "socketpair: %s", strerror(errno));
        close(w[0]);
        close(w[1]);
        close(r[0]);
        close(r[1]);
        return -1;
    }
    pid_t parent = getpid();
    fflush(NULL); /* nothing buffered in the host gets written twice */
    pid_t pid = fork();
    if (pid < 0) {
        set_fault(f, AW_FAULT_LOST, "fork: %s", strerror(errno));
        for (int i = 0; i < 2; i++) {
            close(w[i]);
            close(r[i]);
            if (o[i] >= 0)
                close(o[i]);
        }
        return -1;
    }
    if (pid == 0) {
        /* Die with the host. */
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (getppid() != parent)
            _exit(0);
        close(w[0]);
        close(r[0]);
        if (o[0] >= 0)
            close(o[0]);
        child_main(c, w[1], r[1], o[1]);
        _exit(0);
    }
    close(w[1]);
    close(r[1]);
    if (o[1] >= 0)
        close(o[1]);
    c->pid = pid;
    c->has_cpu_clock = clock_getcpuclockid(pid, &c->cpu_clock) == 0;
    c->wire = w[0];
    c->rep = r[0];
    c->outfd = o[0];
    return 0;
}

static int budget_of(const childseat *c, const aw_settings *set)
{
    if (c->opts.budget_ms > 0)
        return c->opts.budget_ms;
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
    int rc = exchange(c, AW_WIRE_REQ_NAME, NULL, NULL, start_budget, &ef);
    flush_output(c);
    if (rc < 0) {
        *f = ef;
        return NULL;
    }
    aw_seat_reply r;
    aw_wire_seat_reply(&c->ws, AW_WIRE_REQ_NAME, &r, f);
    const char *text = r.text;
    size_t len = r.len;
    if (!text) {
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
    if (c->opts.persistent && c->pid > 0 && !c->lost) {
        /* The child plays on: the next packet (INITIALIZE) carries the whole
         * gameInfo with this game's agent and seed, and starts the game's
         * agent instance in the child. */
        aw_wire_seat_reset(&c->ws, agent_seed);
        if (!c->named)
            snprintf(c->name, sizeof c->name, "Agent[%02d]", agent);
        return c->name;
    }
    stop_child(c, NULL, 0);
    aw_wire_seat_reset(&c->ws, agent_seed);
    return start_child(c, f);
}

int aw_childseat_ready(aw_seat *s, bool fresh, aw_seat_fault *f)
{
    childseat *c = (childseat *)s;
    if (c->pid > 0 && !c->lost && !fresh)
        return 0;
    stop_child(c, NULL, 0);
    /* The child's first instance starts with no game's seed; each game's
     * INITIALIZE brings its own. */
    c->agent_seed = 0;
    aw_wire_seat_reset(&c->ws, 0);
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
    if (c->lost || c->pid <= 0) {
        set_fault(f, AW_FAULT_LOST, "out of this game: %s", c->lost_msg);
        return -1;
    }
    if (exchange_send(c, kind, info, set, budget_of(c, set), f) < 0) {
        flush_output(c);
        return -1;
    }
    c->pending = kind;
    return AW_SEAT_PENDING;
}

static int seat_wait(aw_seat *base, aw_seat_reply *reply, aw_seat_fault *f)
{
    childseat *c = (childseat *)base;
    aw_req_kind kind = c->pending;
    int rc = exchange_finish(c, kind, f);
    flush_output(c);
    if (rc != 0)
        return -1;
    if (!aw_req_needs_reply(kind))
        return 0;
    /* The child formats targets itself: anything else means it is not the
     * child we started. */
    if (aw_wire_seat_reply(&c->ws, (int)kind, reply, f) < 0)
        return lose_with(c, f);
    return 0;
}

static void seat_free(aw_seat *base)
{
    childseat *c = (childseat *)base;
    stop_child(c, NULL, 0);
    aw_wire_seat_free(&c->ws);
    aw_buf_free(&c->rbuf);
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
};

aw_seat *aw_childseat_new(aw_childseat_make make, void *make_ud, const aw_childseat_opts *opts, aw_error *err)
{
    childseat *c = aw_xcalloc(1, sizeof *c);
    c->base.ops = &child_ops;
    c->wire = c->rep = c->outfd = -1;
    if (opts)
        c->opts = *opts;
    if (c->opts.base)
        c->base_set = *c->opts.base;
    else if (aw_settings_preset(&c->base_set, "aiwolf", 5, err) < 0) {
        free(c);
        return NULL;
    }
    c->opts.base = NULL;
    if (c->opts.read_dir)
        c->opts.read_dir = c->read_dir = aw_xstrdup(c->opts.read_dir);
    aw_wire_seat_init(&c->ws, REPLY_MAX_LINE);
    aw_buf_init(&c->rbuf);
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
