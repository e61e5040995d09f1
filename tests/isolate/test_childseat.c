/* test_childseat: agents in confined child processes.
 *  - the confinement itself: in a forked child, after aw_confine,
 *    harmless calls work, reading files fails with EPERM, and opening a file
 *    for writing, creating a socket, forking, exec and signalling the parent
 *    kill the process (SIGSYS); the address-space limit holds; with a read
 *    folder (Landlock), files beneath it can be read and no others;
 *  - whole games with C players in child seats: the log is byte-identical to
 *    the same game with the players in process (the wire round trip loses
 *    nothing a player uses), the host's descriptors and children are back to
 *    where they started;
 *  - every thread of a confined child is under the filter (the sandbox's
 *    watchdog thread, started before it, too);
 *  - a child that has not run yet when the host starts counting, then
 *    waits without a CPU past twice the budget, still answers;
 *  - hostile children, one per game (a test hook runs inside the confined
 *    child): a crash, one that never answers, a megabyte reply line, garbage
 *    instead of {"agentIdx":N}, a reply to a request that wants none, a
 *    flood, an early exit, a forged report, and attempts to open a file for
 *    writing / create a socket / fork. Each time the host survives, the game finishes and is
 *    legal (aw_logcheck), the fault is in the events log with the right kind,
 *    the agent sits out the rest of the game, and no zombie or descriptor is
 *    left behind.
 * Under AddressSanitizer the filter is installed too, but there is no
 * address-space limit and stderr stays open for the sanitizer's reports:
 * those two checks are skipped, and a crash is an exit, not a signal. Uses childseat, cseat, game, gamelog,
 * logcheck. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>

#include "childframe.h"
#include "childseat.h"
#include "confine.h"
#include "cseat.h"
#include "game.h"
#include "gamelog.h"
#include "logcheck.h"
#include "luaseat.h"
#include "luaseat_talks.h"
#include "sandbox.h"
#include "talkhooks.h"
#include "test.h"
#include "test_load.h"
#include "seat_game.h"

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

static bool no_children(void)
{
    int st;
    return waitpid(-1, &st, WNOHANG) < 0 && errno == ECHILD;
}

/* Waits until pid has died (a zombie, not yet reaped: its exit status is
 * left for the seat that owns it), whatever the load. */
static void wait_dead(pid_t pid)
{
    for (;;) {
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *paren = strrchr(buf, ')'); /* the state follows the name */
        if (!paren || (paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X')))
            return;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
}

/* ---- confinement --------------------------------------------------------- */

enum { T_READ_OPEN, T_WRITE_OPEN, T_SOCKET, T_FORK, T_EXEC, T_KILL_PARENT, T_EXEC_MEM, T_WRITE_STDERR, T_OK,
       T_BIG_ALLOC, T_ABORT, T_FENCED_READ, T_FENCED_OUTSIDE, T_FENCED_WRITE, T_NTESTS };

static void confined_child(int what, int pipefd)
{
    aw_error err;
    int keep[1] = {pipefd};
    if (aw_confine(keep, 1, what == T_FENCED_READ || what == T_FENCED_OUTSIDE ? "tests/isolate" : NULL,
                   16u << 20, NULL, &err) < 0)
        _exit(90);
    int rc = 1;
    switch (what) {
    case T_READ_OPEN:
        rc = open("/etc/passwd", O_RDONLY) < 0 && errno == EPERM ? 0 : 1;
        break;
    case T_WRITE_OPEN:
        open("/tmp/aiwolf-isolate-test", O_WRONLY | O_CREAT, 0600);
        break;
    case T_SOCKET:
        socket(AF_INET, SOCK_STREAM, 0);
        break;
    case T_FORK:
        if (fork() == 0)
            _exit(0);
        break;
    case T_EXEC: {
        char *argv[] = {"/bin/true", NULL};
        execv("/bin/true", argv);
        break;
    }
    case T_KILL_PARENT:
        kill(getppid(), 0);
        break;
    case T_EXEC_MEM: {
        void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        rc = p == MAP_FAILED && errno == EPERM ? 0 : 1;
        break;
    }
    case T_WRITE_STDERR:
        rc = write(2, "x", 1) < 0 && errno == EPERM ? 0 : 1;
        break;
    case T_OK: {
        char *p = malloc(1 << 20);
        memset(p, 1, 1 << 20);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        rc = write(pipefd, "ok", 2) == 2 && p[100] == 1 ? 0 : 1;
        free(p);
        break;
    }
    case T_BIG_ALLOC: {
        /* 16 MiB cap + 256 MiB slack: a gigabyte cannot be had. */
        void *p = malloc((size_t)1 << 30);
        rc = p == NULL ? 0 : 1;
        break;
    }
    case T_ABORT:
        abort();
    case T_FENCED_READ: {
        /* Landlock on tests/isolate: its files can be read */
        int fd = open("tests/isolate/CMakeLists.txt", O_RDONLY);
        char buf[16];
        rc = fd >= 0 && read(fd, buf, sizeof buf) == (ssize_t)sizeof buf ? 0 : 1;
        break;
    }
    case T_FENCED_OUTSIDE:
        /* ...but nothing outside it */
        rc = open("tests/wire/CMakeLists.txt", O_RDONLY) < 0 && errno == EACCES ? 0 : 1;
        break;
    case T_FENCED_WRITE:
        /* and writing inside it still kills */
        open("tests/isolate/x", O_WRONLY | O_CREAT, 0600);
        break;
    }
    _exit(rc);
}

static void confinement(void)
{
    const char *names[] = {"read-open", "write-open", "socket", "fork", "exec", "kill-parent", "exec-mem",
                           "write-stderr", "ok", "big-alloc", "abort", "fenced-read", "fenced-outside",
                           "fenced-write"};
    /* expected: exit 0 (the call failed with EPERM / worked), or the signal */
    const int sig[] = {0, SIGSYS, SIGSYS, SIGSYS, SIGSYS, SIGSYS, 0, 0, 0, 0, SIGABRT, 0, 0, SIGSYS};
    for (int t = 0; t < T_NTESTS; t++) {
        if (t == T_BIG_ALLOC && aw_confine_sanitized())
            continue; /* no address-space limit under AddressSanitizer */
        if (t == T_WRITE_STDERR && aw_confine_sanitized())
            continue; /* stderr stays writable for the sanitizer's reports */
        if ((t == T_FENCED_READ || t == T_FENCED_OUTSIDE) && !aw_confine_landlock()) {
            printf("%s: skipped, this kernel has no Landlock\n", names[t]);
            continue;
        }
        int p[2];
        CHECK(pipe(p) == 0);
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            confined_child(t, p[1]);
        }
        close(p[1]);
        int st = 0;
        waitpid(pid, &st, 0);
        close(p[0]);
        if (sig[t])
            CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == sig[t], "%s: expected signal %d, status 0x%x", names[t],
                      sig[t], st);
        else
            CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status 0x%x", names[t], st);
    }
    CHECK(access("/tmp/aiwolf-isolate-test", F_OK) != 0);
    CHECK(access("tests/isolate/x", F_OK) != 0);
}

/* ---- the Lua sandbox's watchdog in a confined child ----------------------- */

/* Host code stuck inside a call, where no hook runs: only the last resort
 * (the watchdog's handler jumping out) ends it. */
static int spin_in_c(lua_State *L)
{
    (void)L;
    for (volatile unsigned long i = 0;; i++)
        ;
    return 0;
}

static int noop(lua_State *L)
{
    (void)L;
    return 0;
}

/* In a confined child, with the watchdog thread started before the filter
 * (thread) or the per-thread timers (not): the mode is the one expected and
 * the filter allows the timers only in the second; after cheap calls an
 * endless loop is stopped at its budget of 50 ms (in the thread mode the
 * count hook is off and the timers are refused: only the thread can stop
 * it); host code stuck in a C loop is abandoned by the last resort (one
 * budget, at least 100 ms, of CPU time past the deadline, or twice the
 * wall-clock bound after the call's start on a machine so busy that the
 * call did not get that much CPU). A loop that the load kept from its
 * budget (test_cut_by_load) is run again, up to 10 times. Writes what went
 * wrong to fd; exits 0 when all went right. */
static void watchdog_child(bool thread, int fd)
{
    char msg[300] = "";
    aw_error err;
    int started = thread ? aw_sandbox_watchdog_start() : 0;
    aw_confine_opts o = {.watchdog_thread = started == 1};
    int keep[1] = {fd};
    if (aw_confine(keep, 1, NULL, 0, &o, &err) < 0) {
        snprintf(msg, sizeof msg, "aw_confine: %.200s", err.msg);
        goto out;
    }
    if (thread && started != 1) {
        snprintf(msg, sizeof msg, "aw_sandbox_watchdog_start did not start the thread");
        goto out;
    }
    timer_t tm;
    int tc = timer_create(CLOCK_MONOTONIC, NULL, &tm);
    if (thread ? !(tc < 0 && errno == EPERM) : tc != 0) {
        snprintf(msg, sizeof msg, "timer_create %s in the %s mode", tc == 0 ? "allowed" : "refused",
                 thread ? "thread" : "timers");
        goto out;
    }
    if (tc == 0)
        timer_delete(tm);
    aw_sandbox_limits lim;
    aw_sandbox_limits_default(&lim);
    lim.budget_ms = 50;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    if (!sb) {
        snprintf(msg, sizeof msg, "aw_sandbox_new: %.200s", err.msg);
        goto out;
    }
    aw_fault f;
    for (int i = 0; i < 1000; i++)
        aw_sandbox_run(sb, noop, NULL, &f);
    const char *want = thread ? "thread" : "timers";
    if (strcmp(aw_sandbox_watchdog_mode(), want) != 0) {
        snprintf(msg, sizeof msg, "watchdog mode %s, not %s", aw_sandbox_watchdog_mode(), want);
        goto out;
    }
    const char *src = "while true do end";
    int rc;
    for (int tries = 1;; tries++) {
        rc = aw_sandbox_load(sb, src, strlen(src), "=loop", &f);
        if (rc >= 0 || !test_cut_by_load(&f, lim.budget_ms) || tries == 10)
            break;
        if (strstr(f.msg, "killed")) { /* the sandbox is dead: a new one */
            aw_sandbox_free(sb);
            if (!(sb = aw_sandbox_new(&lim, &err))) {
                snprintf(msg, sizeof msg, "aw_sandbox_new: %.200s", err.msg);
                goto out;
            }
        }
    }
    double ms = (double)f.elapsed_ns / 1e6;
    if (rc >= 0 || f.kind != AW_FAULT_TIMEOUT || strstr(f.msg, "killed") || ms < 45 || !test_stopped_in_time(&f, 50)) {
        snprintf(msg, sizeof msg, "loop: %s after %.1f ms: %.200s", aw_fault_kind_name(f.kind), ms, f.msg);
        goto out;
    }
    rc = aw_sandbox_run(sb, spin_in_c, NULL, &f);
    ms = (double)f.elapsed_ns / 1e6;
    bool late = f.wall_ns >= 2000000000u; /* the load kept it from 140 ms of CPU for 2 s */
    /* within 500 ms of CPU only where the thread notices itself (the
     * timers; test_stopped_in_time): the watchdog thread's pace is the
     * machine's */
    if (rc >= 0 || f.kind != AW_FAULT_TIMEOUT || !strstr(f.msg, "killed") || (ms < 140 && !late) ||
        (!thread && ms >= 500)) {
        snprintf(msg, sizeof msg, "stuck call: %s after %.1f ms: %.200s", aw_fault_kind_name(f.kind), ms, f.msg);
        goto out;
    }
    aw_sandbox_free(sb);
out:
    if (*msg && write(fd, msg, strlen(msg)) < 0)
        _exit(2);
    _exit(*msg ? 1 : 0);
}

static void watchdog_confined(void)
{
    if (aw_sandbox_watchdog_signal() == 0) {
        printf("watchdog in a confined child: skipped, the watchdog is off\n");
        return;
    }
    for (int thread = 1; thread >= 0; thread--) {
        int p[2];
        CHECK(pipe(p) == 0);
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            alarm(120); /* a watchdog that never fires fails the test instead of hanging it */
            watchdog_child(thread, p[1]);
        }
        close(p[1]);
        char msg[301];
        ssize_t n = read(p[0], msg, sizeof msg - 1);
        msg[n > 0 ? n : 0] = '\0';
        int st = 0;
        waitpid(pid, &st, 0);
        close(p[0]);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "watchdog (%s) in a confined child: status 0x%x: %s",
                  thread ? "thread" : "timers", st, msg);
    }
}

/* Every thread of a confined child is under the filter, the watchdog
 * thread started before it too: a seccomp filter installed by one thread
 * is that thread's alone unless it is synchronized to all. Read from the
 * host (/proc/PID/task/TID/status), while the child waits on its pipe. */
static void threads_confined(void)
{
    if (aw_sandbox_watchdog_signal() == 0) {
        printf("threads of a confined child: skipped, the watchdog is off\n");
        return;
    }
    int ask[2], ans[2];
    CHECK(pipe(ask) == 0 && pipe(ans) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(ask[1]);
        close(ans[0]);
        alarm(120); /* a hang guard only: the host reads it in milliseconds, and its end closes if it dies */
        int started = aw_sandbox_watchdog_start();
        aw_confine_opts o = {.watchdog_thread = started == 1};
        int keep[2] = {ask[0], ans[1]};
        aw_error err;
        char c = started == 1 ? 'y' : 'n';
        if (aw_confine(keep, 2, NULL, 0, &o, &err) < 0)
            _exit(2);
        if (write(ans[1], &c, 1) != 1)
            _exit(3);
        while (read(ask[0], &c, 1) > 0) /* until the host closes its end */
            ;
        _exit(0);
    }
    close(ask[0]);
    close(ans[1]);
    char c = 0;
    CHECK(read(ans[0], &c, 1) == 1 && c == 'y');
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int tasks = 0, filtered = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        tasks++;
        char path[400], line[256];
        snprintf(path, sizeof path, "%s/%.256s/status", dir, e->d_name);
        FILE *f = fopen(path, "r");
        bool sec = false, nnp = false;
        while (f && fgets(line, sizeof line, f)) {
            sec |= strcmp(line, "Seccomp:\t2\n") == 0;
            nnp |= strcmp(line, "NoNewPrivs:\t1\n") == 0;
        }
        if (f)
            fclose(f);
        CHECK_MSG(sec && nnp, "thread %s of the confined child: seccomp filter %s, no new privileges %s", e->d_name,
                  sec ? "on" : "off", nnp ? "on" : "off");
        filtered += sec && nnp;
    }
    if (d)
        closedir(d);
    CHECK_MSG(tasks == 2, "the confined child has %d threads, not 2 (itself and the watchdog)", tasks);
    close(ask[1]);
    close(ans[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x", st);
    CHECK_INT(filtered, tasks);
}

/* ---- games ------------------------------------------------------------------ */

typedef struct hook {
    int mode;
    int agent; /* seat that misbehaves */
} hook;

enum { H_NONE, H_CRASH, H_HANG, H_MEGABYTE, H_GARBAGE_VOTE, H_STRAY, H_FLOOD, H_EXIT, H_OPEN_WRITE, H_SOCKET,
       H_FORK, H_BAD_FRAME, H_DOUBLE, H_TEXT_NOTIFY, H_SLEEP, H_ADDRESS_SPACE, H_NMODES };

/* More address space than the child's limit (RLIMIT_AS: what it inherited,
 * twice the agent's memory cap and 256 MiB) allows, and less than a 64-bit
 * process has: a reservation of it takes no memory, so whether it is
 * refused depends on the limit alone, never on the machine's memory. */
#define PAST_THE_LIMIT ((size_t)1 << 40)

/* Writes an answer frame as a (hostile) child would. */
static void write_answer(int fd, int request, unsigned seq, const char *text, size_t len, int target)
{
    aw_buf b;
    aw_buf_init(&b);
    aw_seat_fault none = {AW_FAULT_NONE, ""};
    aw_cf_answer_encode(&b, request, seq, &none, text, len, target);
    ssize_t w = write(fd, b.data, b.len);
    (void)w;
    aw_buf_free(&b);
}

static int child_hook(void *ud, int request, unsigned seq, int fd)
{
    hook *h = ud;
    switch (h->mode) {
    case H_CRASH:
        if (request == AW_REQ_TALK)
            raise(SIGSEGV);
        return 0;
    case H_HANG: /* spends CPU time: killed at three times the budget of it */
        if (request == AW_REQ_VOTE)
            for (volatile unsigned long k = 0;; k++)
                ;
        return 0;
    case H_SLEEP: /* spends none: killed at the wall-clock bound */
        if (request == AW_REQ_VOTE)
            for (;;) {
                struct timespec ts = {1, 0};
                nanosleep(&ts, NULL);
            }
        return 0;
    case H_MEGABYTE:
        if (request == AW_REQ_TALK) {
            static char mb[1 << 20];
            memset(mb, 'x', sizeof mb);
            write_answer(fd, request, seq, mb, sizeof mb, AW_NO_AGENT);
            return 1;
        }
        return 0;
    case H_GARBAGE_VOTE:
        if (request == AW_REQ_VOTE) {
            write_answer(fd, request, seq, "{\"agentIdx\": 1}", 15, AW_NO_AGENT);
            return 1;
        }
        return 0;
    case H_STRAY:
        /* an answer to an earlier request, before the real one */
        if (request == AW_REQ_DAILY_INITIALIZE)
            write_answer(fd, AW_REQ_TALK, seq - 1, "Skip", 4, AW_NO_AGENT);
        return 0;
    case H_FLOOD:
        if (request == AW_REQ_DAILY_FINISH) {
            static char junk[1 << 16];
            memset(junk, 'j', sizeof junk);
            for (int i = 0; i < 160; i++) /* 10 MiB */
                if (write(fd, junk, sizeof junk) < 0)
                    break;
        }
        return 0;
    case H_EXIT:
        if (request == AW_REQ_DAILY_FINISH)
            _exit(0);
        return 0;
    case H_OPEN_WRITE:
        if (request == AW_REQ_TALK)
            open("/tmp/aiwolf-isolate-test", O_WRONLY | O_CREAT, 0600);
        return 0;
    case H_SOCKET:
        if (request == AW_REQ_TALK)
            socket(AF_INET, SOCK_STREAM, 0);
        return 0;
    case H_FORK:
        if (request == AW_REQ_TALK && fork() == 0)
            _exit(0);
        return 0;
    case H_BAD_FRAME:
        if (request == AW_REQ_DAILY_FINISH) {
            /* the right magic, request and number, a fault kind from some other world */
            aw_cf_answer_header a = {AW_CF_ANSWER_MAGIC, request, seq, 99, 0, 0, 0, AW_NO_AGENT, 0};
            ssize_t w = write(fd, &a, sizeof a);
            (void)w;
            return 1;
        }
        return 0;
    case H_DOUBLE:
        /* a right answer, then the child's own: the second is a reply
         * nobody asked for, whether the host reads both at once or the
         * second at the next request */
        if (request == AW_REQ_DAILY_INITIALIZE)
            write_answer(fd, request, seq, NULL, 0, AW_NO_AGENT);
        return 0;
    case H_TEXT_NOTIFY:
        if (request == AW_REQ_DAILY_INITIALIZE) {
            write_answer(fd, request, seq, "hello", 5, AW_NO_AGENT);
            return 1;
        }
        return 0;
    case H_ADDRESS_SPACE:
        /* Memory taken outside the Lua allocator past the address-space
         * limit: the reservation is refused (without the limit it is taken
         * and the seat answers as usual: no fault, and the test fails), and
         * the host's allocation of it stops the child as out of memory. */
        if (request == AW_REQ_TALK) {
            void *p = mmap(NULL, PAST_THE_LIMIT, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p != MAP_FAILED) {
                munmap(p, PAST_THE_LIMIT);
                return 0;
            }
            char *q = aw_xmalloc(PAST_THE_LIMIT);
            q[0] = 1; /* not reached: aw_xmalloc stops the process */
        }
        return 0;
    }
    return 0;
}

static void play(const aw_settings *s, uint64_t seed, bool isolated, hook *h, int budget_ms, played *out)
{
    aw_seat *seats[AW_MAX_PLAYERS + 1] = {0};
    uint64_t seat_seed[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= s->players; a++) {
        seat_seed[a] = seed * 100 + (uint64_t)a;
        if (!isolated) {
            seats[a] = aw_cseat_random(seat_seed[a]);
            continue;
        }
        aw_childseat_opts co;
        memset(&co, 0, sizeof co);
        co.limits.budget_ms = budget_ms;
        if (h && h->agent == a) {
            co.child_hook = child_hook;
            co.hook_ud = h;
        }
        aw_error err;
        seats[a] = aw_childseat_new(seat_game_crandom, &seat_seed[a], &co, &err);
        CHECK_MSG(seats[a] != NULL, "%s", err.msg);
    }
    played_log pl;
    played_log_open(out, &pl);
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = s;
    go.seed = seed;
    go.log = &pl.log;
    aw_error err;
    out->rc = aw_game_play(&go, seats, &out->res, &err);
    CHECK_MSG(out->rc == 0, "%s", err.msg);
    played_log_close(&pl);
    for (int a = 1; a <= s->players; a++)
        if (seats[a])
            seats[a]->ops->free(seats[a]);
}

static void legal(const played *p, const aw_settings *s, const char *what)
{
    aw_logcheck_report rep;
    aw_error err;
    int v = aw_logcheck(p->csv, p->csv_len, s, NULL, &rep, &err);
    CHECK_MSG(v == AW_LOG_LEGAL, "%s: log not legal at line %ld (%s): %s", what, rep.line, rep.text, rep.reason);
}

static void determinism(void)
{
    const char *presets[] = {"aiwolf", "seed2015", "regulation"};
    int fd0 = count_fds();
    for (int i = 0; i < 3; i++)
        for (int players = 5; players <= 15; players += 10) {
            aw_settings s;
            CHECK(aw_settings_preset(&s, presets[i], players, NULL) == 0);
            uint64_t seed = 1000 + (uint64_t)(i * 31 + players);
            played a, b;
            play(&s, seed, false, NULL, 1000, &a);
            play(&s, seed, true, NULL, 1000, &b);
            CHECK_MSG(a.csv_len == b.csv_len && memcmp(a.csv, b.csv, a.csv_len) == 0,
                      "%s %d players: the isolated game's log differs from the in-process one", presets[i], players);
            CHECK_INT(b.res.faults, 0);
            legal(&b, &s, presets[i]);
            played_free(&a);
            played_free(&b);
        }
    CHECK_INT(count_fds(), fd0);
    CHECK(no_children());
}

static void hostile(void)
{
    const char *names[] = {"none", "crash", "hang", "megabyte", "garbage-vote", "stray", "flood", "exit",
                           "open-write", "socket", "fork", "bad-frame", "double", "text-notify", "sleep",
                           "address-space"};
    /* the fault kind the events log must show, and a word of its message */
    const char *want[][2] = {{NULL, NULL},
                             {"lost", "signal 11"},
                             {"timeout", "no answer within 750 ms of CPU time"},
                             {"reply", "longer than 64 KiB"},
                             {"reply", "agentIdx"},
                             {"reply", "unexpected bytes"},
                             {"reply", "garbage on the wire"},
                             {"lost", "exited with status 0"},
                             {"lost", "forbidden system call"},
                             {"lost", "forbidden system call"},
                             {"lost", "forbidden system call"},
                             {"reply", "broken answer frame"},
                             {"reply", "unexpected bytes"},
                             {"reply", "a text reply where none is due"},
                             {"timeout", "no answer within 7500 ms (the wall-clock bound)"},
                             {"lost", "signal 6"}};
    aw_settings s;
    CHECK(aw_settings_preset(&s, "aiwolf", 5, NULL) == 0);
    for (int m = H_CRASH, tries = 1; m < H_NMODES; m++, tries = 1) {
    again:;
        if (m == H_ADDRESS_SPACE && aw_confine_sanitized()) {
            /* AddressSanitizer reserves terabytes: a sanitized child has no RLIMIT_AS (docs/isolation.md) */
            printf("%-13s skipped: no address-space limit under AddressSanitizer\n", names[m]);
            continue;
        }
        int fd0 = count_fds();
        /* the misbehaving seat: every agent talks and votes on day 1 */
        hook h = {m, 2};
        played p;
        if (m == H_CRASH && aw_confine_sanitized())
            printf("(the AddressSanitizer SEGV report that follows is the crash under test)\n");
        uint64_t t0 = aw_now_ns();
        /* A budget of 250 ms: the hanging child is killed after 750 ms of
         * CPU time, the sleeping one after 7.5 s (30x), and a loaded machine
         * does not push the well-behaved ones past that (CPU time). */
        play(&s, 77 + (uint64_t)m, true, &h, 250, &p);
        double secs = (aw_now_ns() - t0) / 1e9;
        CHECK_MSG(p.rc == 0 && p.res.winner != AW_TEAM_NONE, "%s: the game did not finish", names[m]);
        legal(&p, &s, names[m]);
        char needle[64];
        snprintf(needle, sizeof needle, "\"agent\":2,\"call\":");
        char fault[64];
        snprintf(fault, sizeof fault, "\"fault\":\"%s\"", want[m][0]);
        /* the first fault of agent 2 has the expected kind and message */
        const char *first = NULL;
        for (const char *q = p.events; q && (q = strstr(q, needle)); q++) {
            const char *eol = strchr(q, '\n');
            const char *f = strstr(q, "\"fault\"");
            if (f && (!eol || f < eol)) {
                first = q;
                break;
            }
        }
        CHECK_MSG(first != NULL, "%s: no fault logged", names[m]);
        if (first) {
            const char *eol = strchr(first, '\n');
            size_t n = eol ? (size_t)(eol - first) : strlen(first);
            char line[800];
            snprintf(line, sizeof line, "%.*s", (int)(n < 799 ? n : 799), first);
            /* AddressSanitizer turns a SIGSEGV into its report and exit status 1,
             * or into an abort (signal 6) with ASAN_OPTIONS=abort_on_error=1. */
            bool asan_crash = m == H_CRASH && aw_confine_sanitized();
            const char *word = asan_crash ? "exited with status 1" : want[m][1];
            bool found = strstr(line, word) || (asan_crash && strstr(line, "killed by signal 6"));
            /* The hanging child kept by the machine's load from 500 ms of
             * CPU (10 % of a CPU) for 5 s of wall-clock time: the wall-clock
             * bound killed it. The game again, up to 3 times; on a machine
             * that busy, that bound's kill is what the user gets, and the
             * one checked. */
            if (m == H_HANG && !found && strstr(line, "(the wall-clock bound)")) {
                if (tries++ < 3) {
                    printf("%-13s %.2f s  %s (the machine's load: again)\n", names[m], secs, line);
                    played_free(&p);
                    goto again;
                }
                printf("(the machine's load: the wall-clock bound killed the hanging child each time)\n");
                found = strstr(line, "the agent's process was killed") != NULL;
            }
            CHECK_MSG(strstr(line, fault) && found, "%s: first fault: %s", names[m], line);
            printf("%-13s %.2f s  %s\n", names[m], secs, line);
        }
        /* after the loss: substitutes, not more waiting (no limit on the
         * game's wall time: a loaded machine makes it longer) */
        CHECK_MSG(strstr(p.events, "out of this game") != NULL, "%s: no later substitute", names[m]);
        CHECK_MSG(count_fds() == fd0, "%s: %d descriptors before, %d after", names[m], fd0, count_fds());
        CHECK_MSG(no_children(), "%s: a child was left behind", names[m]);
        played_free(&p);
    }
    CHECK(access("/tmp/aiwolf-isolate-test", F_OK) != 0);
}

/* A child that dies between games: the next game gets a fresh one; one
 * that dies while the host writes a long ask is seen at once. */
static void restart(void)
{
    aw_settings s;
    CHECK(aw_settings_preset(&s, "aiwolf", 5, NULL) == 0);
    uint64_t seed = 5;
    aw_childseat_opts co;
    memset(&co, 0, sizeof co);
    co.limits.budget_ms = 200;
    aw_error err;
    aw_seat *seat = aw_childseat_new(seat_game_crandom, &seed, &co, &err);
    aw_seat_fault f = {AW_FAULT_NONE, ""};
    CHECK(seat->ops->begin(seat, 1, 1, &f) != NULL);
    pid_t first = aw_childseat_pid(seat);
    CHECK(first > 0);
    kill(first, SIGKILL);
    wait_dead(first); /* so that the request finds a closed stream */
    aw_info info;
    memset(&info, 0, sizeof info);
    info.agent = 1;
    info.n = 5;
    aw_seat_reply r = {NULL, 0, 0};
    /* A notification is taken at once and goes with the next request. The
     * asks fit in the pipe (the host keeps its read end open, so no
     * SIGPIPE): the death shows when the request's answer is awaited, and
     * is the notification's (the first frame the child did not answer);
     * the request is out of the game. */
    CHECK_INT(seat->ops->request(seat, AW_REQ_DAILY_INITIALIZE, &info, &s, &r, &f), 0);
    aw_seat_late late;
    CHECK_INT(seat->ops->late(seat, &late), 0);
    int rc = seat->ops->request(seat, AW_REQ_VOTE, &info, &s, &r, &f);
    if (rc == AW_SEAT_PENDING)
        rc = seat->ops->wait(seat, &r, &f);
    CHECK(rc < 0);
    CHECK_INT(f.kind, AW_FAULT_LOST);
    CHECK_MSG(strstr(f.msg, "out of this game: DAILY_INITIALIZE: connection closed") && strstr(f.msg, "signal 9"),
              "%s", f.msg);
    CHECK_INT(seat->ops->late(seat, &late), 1);
    CHECK_INT(late.kind, AW_REQ_DAILY_INITIALIZE);
    CHECK_INT(late.fault.kind, AW_FAULT_LOST);
    CHECK_MSG(strstr(late.fault.msg, "DAILY_INITIALIZE: connection closed") == late.fault.msg &&
                  strstr(late.fault.msg, "signal 9"), "%s", late.fault.msg);
    CHECK_INT(seat->ops->late(seat, &late), 0);
    CHECK_INT(aw_childseat_pid(seat), 0);
    CHECK(seat->ops->begin(seat, 1, 2, &f) != NULL);
    pid_t second = aw_childseat_pid(seat);
    CHECK(second > 0 && second != first);

    /* An ask larger than the pipe holds to a dead child: the host, waiting
     * to write the rest, sees the answer pipe's end at once (not the
     * deadline, 20 s of wall-clock time at this budget). */
    CHECK(seat->ops->request(seat, AW_REQ_INITIALIZE, &info, &s, &r, &f) == 0);
    CHECK(seat->ops->request(seat, AW_REQ_VOTE, &info, &s, &r, &f) == AW_SEAT_PENDING);
    CHECK(seat->ops->wait(seat, &r, &f) == 0);
    CHECK(seat->ops->late(seat, &late) == 1 && late.kind == AW_REQ_INITIALIZE && late.fault.kind == AW_FAULT_NONE &&
          late.cpu_known);
    kill(second, SIGKILL);
    wait_dead(second);
    enum { NBIG = 2000 };
    static char text[100];
    memset(text, 'x', sizeof text);
    aw_talk *big = calloc(NBIG, sizeof *big);
    for (int i = 0; i < NBIG; i++)
        big[i] = (aw_talk){1, i, i / 5, 1 + i % 5, text, sizeof text, NULL};
    info.day = 1;
    info.talks = big;
    info.ntalks = NBIG;
    rc = seat->ops->request(seat, AW_REQ_TALK, &info, &s, &r, &f);
    if (rc == AW_SEAT_PENDING)
        rc = seat->ops->wait(seat, &r, &f);
    CHECK(rc < 0);
    CHECK_INT(f.kind, AW_FAULT_LOST);
    /* found by the write (not by the deadline, which is a timeout) */
    CHECK_MSG(strstr(f.msg, "could not be sent") && strstr(f.msg, "signal 9"), "%s", f.msg);
    free(big);
    seat->ops->free(seat);
    CHECK(no_children());
}

/* A child that waits without a CPU is not killed for it, even when it has
 * not run at all yet when the host starts counting: a CPU clock reading of
 * 0 is a reading (the host once took it for "no CPU clock" and gave the
 * child twice the budget of wall-clock time). The host runs on one CPU
 * with SCHED_BATCH (a woken task does not preempt the running one), so the
 * forked child gets that CPU only once the host waits for its answer; the
 * child then sleeps past twice NAME's budget (5 s) before it answers. */
static int sleep_at_name(void *ud, int request, unsigned seq, int fd)
{
    (void)ud;
    (void)seq;
    (void)fd;
    if (request == AW_CF_REQ_NAME) {
        struct timespec ts = {5, 300000000};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    return 0;
}

static void unscheduled_child(void)
{
    cpu_set_t was, one;
    int policy = sched_getscheduler(0);
    struct sched_param sp0, sp = {0};
    CHECK(sched_getaffinity(0, sizeof was, &was) == 0 && sched_getparam(0, &sp0) == 0);
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0 || sched_setscheduler(0, SCHED_BATCH, &sp) != 0) {
        printf("unscheduled child: skipped, cannot run on one CPU with SCHED_BATCH: %s\n", strerror(errno));
        sched_setaffinity(0, sizeof was, &was);
        return;
    }
    uint64_t seed = 9;
    aw_childseat_opts co;
    memset(&co, 0, sizeof co);
    co.limits.budget_ms = 200;
    co.child_hook = sleep_at_name;
    aw_error err;
    aw_seat *seat = aw_childseat_new(seat_game_crandom, &seed, &co, &err);
    CHECK_MSG(seat != NULL, "%s", err.msg);
    if (seat) {
        aw_seat_fault f = {AW_FAULT_NONE, ""};
        uint64_t t0 = aw_now_ns();
        const char *name = seat->ops->begin(seat, 1, 1, &f);
        double secs = (double)(aw_now_ns() - t0) / 1e9;
        CHECK_MSG(name && f.kind == AW_FAULT_NONE, "a child that slept %.1f s at NAME: %s", secs, f.msg);
        seat->ops->free(seat);
    }
    CHECK(sched_setscheduler(0, policy, &sp0) == 0);
    CHECK(sched_setaffinity(0, sizeof was, &was) == 0);
    CHECK(no_children());
}

/* A Lua agent in a child that requires a module from its own folder: the
 * child may read that folder (Landlock) and no other. */
static aw_seat *make_lua(void *ud, FILE *out, aw_error *err)
{
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    aw_luaseat_talks(&lo);
    lo.output = out;
    return aw_luaseat_new(ud, &lo, err);
}

/* A thread that child_prepare starts (as the sandbox's watchdog is) is
 * fenced by Landlock like the agent's thread: it cannot open a file outside
 * the agent's folder. The probe tries one; if it can, the child dies (exit
 * 77) and the NAME request fails. Landlock binds only the threads a fenced
 * thread starts, so the fence must come before child_prepare. */
static void *probe_main(void *arg)
{
    (void)arg;
    int fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
    if (fd >= 0)
        _exit(77);
    return NULL;
}

static int probe_prepare(void)
{
    pthread_t th;
    if (pthread_create(&th, NULL, probe_main, NULL) == 0)
        pthread_join(th, NULL);
    return 0; /* no watchdog thread: the sandbox uses its timers */
}

static void lua_modules(void)
{
    if (!aw_confine_landlock()) {
        printf("lua modules: skipped, this kernel has no Landlock\n");
        return;
    }
    char dir[] = "/tmp/aw-isolate-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char helper[64], agent[64];
    snprintf(helper, sizeof helper, "%s/helper.lua", dir);
    snprintf(agent, sizeof agent, "%s/agent.lua", dir);
    write_file(helper, "return { name = 'from helper' }\n");
    write_file(agent, "local a = {}\n"
                      "function a:getName() return require('helper').name end\n"
                      "return a\n");
    aw_childseat_opts co;
    memset(&co, 0, sizeof co);
    co.limits.budget_ms = 1000;
    co.limits.read_dir = dir;
    aw_error err;
    aw_seat *s = aw_childseat_new(make_lua, agent, &co, &err);
    CHECK_MSG(s != NULL, "%s", err.msg);
    if (s) {
        aw_seat_fault f = {AW_FAULT_NONE, ""};
        const char *name = s->ops->begin(s, 1, 1, &f);
        CHECK_MSG(name && strcmp(name, "from helper") == 0, "name %s, fault %s", name ? name : "(none)", f.msg);
        s->ops->free(s);
    }
    /* A thread that child_prepare starts is fenced as well. */
    if (access("/etc/passwd", R_OK) == 0) {
        co.child_prepare = probe_prepare;
        s = aw_childseat_new(make_lua, agent, &co, &err);
        CHECK_MSG(s != NULL, "%s", err.msg);
        if (s) {
            aw_seat_fault f = {AW_FAULT_NONE, ""};
            const char *name = s->ops->begin(s, 1, 1, &f);
            CHECK_MSG(name && strcmp(name, "from helper") == 0,
                      "a thread started by child_prepare read outside the agent's folder (name %s, fault %s)",
                      name ? name : "(none)", f.msg);
            s->ops->free(s);
        }
        co.child_prepare = NULL;
    }
    /* The same agent with no read folder: the module cannot be read. */
    co.limits.read_dir = NULL;
    s = aw_childseat_new(make_lua, agent, &co, &err);
    if (s) {
        aw_seat_fault f = {AW_FAULT_NONE, ""};
        const char *name = s->ops->begin(s, 1, 1, &f);
        CHECK_MSG(f.kind != AW_FAULT_NONE && (!name || strcmp(name, "from helper") != 0), "module read without a folder");
        s->ops->free(s);
    }
    unlink(helper);
    unlink(agent);
    rmdir(dir);
    CHECK(no_children());
}

int main(void)
{
    /* No SIGPIPE handling here on purpose: a dead child must not kill the host. */
    int fd0 = count_fds();
    confinement();
    watchdog_confined();
    threads_confined();
    determinism();
    hostile();
    restart();
    unscheduled_child();
    lua_modules();
    CHECK_INT(count_fds(), fd0);
    CHECK(no_children());
    return test_done();
}
