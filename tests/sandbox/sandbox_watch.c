/* sandbox_watch: the watchdog as fast calls use it (runtime/luahost/
 * sb_budget.c: no system call per call; docs/sandbox.md, "How time is
 * enforced"), in both of its modes — the watchdog thread and the
 * per-thread timers of confined processes — each in a child process of its
 * own, since the mode is chosen per process:
 *  1. the mode is the one asked for: a watchdog thread and no POSIX timer,
 *     or no thread and two timers for the calling thread;
 *  2. after 200 000 cheap calls an endless loop is still stopped at its
 *     budget, and cheap calls report no more CPU than wall-clock time;
 *  3. a call whose budget is much smaller than any before it (the watchdog
 *     thread sleeping for the smallest budget it has seen) is stopped at
 *     its own;
 *  4. after more than a second without calls (the watchdog thread then
 *     sleeps until the next call wakes it) a loop is stopped at its budget;
 *  5. no signal reaches a thread outside a call: right after each of 20
 *     calls the watchdog had to stop (it signals every 5 ms while a call
 *     runs past its deadline), a 20 ms sleep is not interrupted;
 *  6. threads that run calls (a loop stopped in each) and exit leave no
 *     timer and no thread behind, and the main thread's loops are still
 *     stopped.
 * "Stopped at its budget": a time-out whose fault says so, charged at least
 * the budget of CPU time — or, when the machine gave the thread less than
 * a tenth of a CPU, stopped by the wall-clock bound (docs/sandbox.md) with a
 * fault that says that. How soon after its budget a loop is stopped
 * depends on how the machine schedules the watchdog, so it is measured in
 * bench/sandbox_bench.c ("stop"), not required here. Each child may use
 * 30 s of CPU time (it needs about one; RLIMIT_CPU, not an alarm, so a
 * loaded machine that gives it little of a CPU does not fail it): a
 * watchdog that never wakes, leaving a loop spinning, fails the test
 * instead of hanging it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>

#include "sandbox.h"
#include "test.h"

static aw_sandbox *new_sb(int budget_ms)
{
    aw_sandbox_limits lim;
    aw_error err;
    aw_sandbox_limits_default(&lim);
    lim.budget_ms = budget_ms;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    if (!sb) {
        fprintf(stderr, "aw_sandbox_new: %s\n", err.msg);
        exit(1);
    }
    return sb;
}

static int noop(lua_State *L)
{
    (void)L;
    return 0;
}

/* Runs an endless loop under sb's budget; checks it is stopped at it, or,
 * on a machine so loaded that the thread got less than a tenth of a CPU,
 * at the wall-clock bound (docs/sandbox.md: 10x the budget, at least 1 s;
 * eight such threads at once on two busy cores can meet it). */
static void loop_stopped(aw_sandbox *sb, int budget_ms, const char *what)
{
    aw_fault f;
    const char *src = "while true do end";
    int rc = aw_sandbox_load(sb, src, strlen(src), "=loop", &f);
    CHECK_MSG(rc < 0 && f.kind == AW_FAULT_TIMEOUT, "%s: %s", what, f.msg);
    char why[64];
    snprintf(why, sizeof why, "time budget of %d ms exceeded", budget_ms);
    CHECK_MSG(strncmp(f.msg, why, strlen(why)) == 0, "%s: %s", what, f.msg);
    uint64_t budget_ns = (uint64_t)budget_ms * 1000000u;
    if (strstr(f.msg, "wall-clock bound")) /* at least 10x the budget, 1 s, of wall-clock time */
        CHECK_MSG(f.elapsed_ns < budget_ns && f.wall_ns >= 1000000000u && f.wall_ns >= 10 * budget_ns,
                  "%s: %s (%.1f ms wall)", what, f.msg, (double)f.wall_ns / 1e6);
    else /* its budget spent */
        CHECK_MSG(f.elapsed_ns >= budget_ns, "%s: stopped after %.3f ms of CPU (budget %d ms)", what,
                  (double)f.elapsed_ns / 1e6, budget_ms);
}

/* Entries of /proc/self/timers (the process's POSIX timers), or -1. */
static int count_timers(void)
{
    FILE *fp = fopen("/proc/self/timers", "r");
    if (!fp)
        return -1;
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, fp))
        n += strncmp(line, "ID:", 3) == 0;
    fclose(fp);
    return n;
}

static int count_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void *thread_body(void *arg)
{
    (void)arg;
    aw_sandbox *sb = new_sb(20);
    aw_fault f;
    for (int i = 0; i < 100; i++)
        aw_sandbox_run(sb, noop, NULL, &f);
    loop_stopped(sb, 20, "loop in a thread");
    aw_sandbox_free(sb);
    return NULL;
}

static int scenario(int timers)
{
    if (timers)
        setenv("AIWOLF_SANDBOX_WATCHDOG", "timers", 1);
    else
        unsetenv("AIWOLF_SANDBOX_WATCHDOG");
    const char *mode = timers ? "timers" : "thread";
    struct rlimit cpu = {30, 30};
    CHECK(setrlimit(RLIMIT_CPU, &cpu) == 0);
    aw_fault f;

    /* 1. The mode. */
    int timers0 = count_timers(), threads0 = count_threads();
    aw_sandbox *slow = new_sb(1500);
    CHECK_INT(aw_sandbox_run(slow, noop, NULL, &f), 0);
    int timers1 = count_timers(), threads1 = count_threads();
    printf("%s: %d timers, %d threads before the first call; %d and %d after\n", mode, timers0, threads0, timers1,
           threads1);
    CHECK_INT(threads1, threads0 + (timers ? 0 : 1));
    if (timers0 >= 0)
        CHECK_INT(timers1, timers0 + (timers ? 2 : 0));

    /* 3 (first, while the smallest budget seen is 1.5 s). A much smaller
     * budget than any before. */
    for (int i = 0; i < 1000; i++)
        aw_sandbox_run(slow, noop, NULL, &f);
    aw_sandbox *quick = new_sb(20);
    loop_stopped(quick, 20, "a small budget after large ones");

    /* 2. Many cheap calls, then a loop. */
    aw_sandbox *sb = new_sb(50);
    uint64_t t0 = aw_now_ns(), worst = 0;
    for (int i = 0; i < 200000; i++) {
        aw_sandbox_run(sb, noop, NULL, &f);
        if (f.elapsed_ns > f.wall_ns)
            worst++;
    }
    printf("%s: 200000 empty calls, %.2f us each\n", mode, (double)(aw_now_ns() - t0) / 200000 / 1e3);
    CHECK_MSG(worst == 0, "%s: %llu calls reported more CPU than wall-clock time", mode, (unsigned long long)worst);
    loop_stopped(sb, 50, "loop after many calls");
    aw_sandbox_free(sb);

    /* 4. After a quiet second and a half. */
    sleep_ms(1500);
    loop_stopped(quick, 20, "loop after a quiet time");
    aw_sandbox_free(slow);

    /* 5. No signal outside a call. */
    int interrupted = 0;
    aw_sandbox *tiny = new_sb(5);
    for (int i = 0; i < 20; i++) {
        const char *src = "local x = 0 while true do x = x + 1 end";
        aw_sandbox_load(tiny, src, strlen(src), "=loop", &f);
        CHECK_MSG(f.kind == AW_FAULT_TIMEOUT, "%s: %s", mode, f.msg);
        struct timespec ts = {0, 20000000L};
        interrupted += nanosleep(&ts, NULL) != 0;
    }
    CHECK_MSG(interrupted == 0, "%s: %d sleeps outside calls were interrupted", mode, interrupted);
    aw_sandbox_free(tiny);

    /* 6. Threads come and go. */
    pthread_t th[8];
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 8; i++)
            CHECK(pthread_create(&th[i], NULL, thread_body, NULL) == 0);
        for (int i = 0; i < 8; i++)
            pthread_join(th[i], NULL);
    }
    CHECK_INT(count_threads(), threads1);
    if (timers0 >= 0)
        CHECK_INT(count_timers(), timers1);
    loop_stopped(quick, 20, "loop after the threads");
    aw_sandbox_free(quick);
    return test_done();
}

int main(void)
{
    if (getenv("AIWOLF_SANDBOX_NO_WATCHDOG") && strcmp(getenv("AIWOLF_SANDBOX_NO_WATCHDOG"), "0") != 0) {
        printf("skipped: the watchdog is off in this run\n");
        return 0;
    }
    for (int timers = 0; timers < 2; timers++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            int rc = scenario(timers);
            fflush(NULL);
            _exit(rc);
        }
        int st = 0;
        CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s mode failed (status %d)", timers ? "timers" : "thread",
                  st);
    }
    return test_done();
}
