/* The watchdog's signal, as a program embedding the runtime sees it
 * (sandbox.h, aw_sandbox_set_watchdog_signal): by default the first free
 * real-time signal from SIGRTMIN+4 up, never one the program already
 * handles; a signal of the program's choice; none at all (the count-hook
 * fallback); refusals for a taken or non-real-time signal and for a choice
 * made too late. Each scenario runs in a child process of its own, since
 * the choice is made once per process. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"
#include "test.h"
#include "test_load.h"

static void program_handler(int sig)
{
    (void)sig;
}

static void take(int signo)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = program_handler;
    sigaction(signo, &sa, NULL);
}

/* An endless loop under a 50 ms budget must time out: charged at least its
 * budget unless the machine's load cut it (test_load.h), and within 2x the
 * budget + 200 ms of CPU where the code guarantees it. */
static void loop_times_out(void)
{
    aw_sandbox_limits lim;
    aw_sandbox_limits_default(&lim);
    lim.budget_ms = 50;
    aw_error err;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    CHECK(sb != NULL);
    if (!sb)
        return;
    aw_fault f;
    const char *src = "while true do end";
    CHECK(aw_sandbox_load(sb, src, strlen(src), "=loop", &f) < 0);
    CHECK_INT(f.kind, AW_FAULT_TIMEOUT);
    CHECK_MSG(f.elapsed_ns >= 50000000u || test_cut_by_load(&f, 50), "stopped after %.1f ms of CPU: %s",
              f.elapsed_ns / 1e6, f.msg);
    CHECK_MSG(test_stopped_in_time(&f, 50), "took %.1f ms of CPU", f.elapsed_ns / 1e6);
    aw_sandbox_free(sb);
}

static int scenario(int which)
{
    aw_error err;
    switch (which) {
    case 0: /* the program handles SIGRTMIN+4: the default choice skips it */
        take(SIGRTMIN + 4);
        CHECK(aw_sandbox_watchdog_signal() > SIGRTMIN + 4);
        loop_times_out();
        {
            struct sigaction old;
            sigaction(SIGRTMIN + 4, NULL, &old);
            CHECK(old.sa_handler == program_handler); /* still the program's */
        }
        break;
    case 1: /* a signal of the program's choice */
        CHECK_INT(aw_sandbox_set_watchdog_signal(SIGRTMIN + 7, &err), 0);
        loop_times_out();
        CHECK_INT(aw_sandbox_watchdog_signal(), SIGRTMIN + 7);
        break;
    case 2: /* no watchdog: the count hook still stops the loop */
        CHECK_INT(aw_sandbox_set_watchdog_signal(0, &err), 0);
        CHECK_INT(aw_sandbox_watchdog_signal(), 0);
        loop_times_out();
        break;
    case 3: /* refusals */
        take(SIGRTMIN + 6);
        CHECK(aw_sandbox_set_watchdog_signal(SIGRTMIN + 6, &err) < 0);
        CHECK(strstr(err.msg, "handler") != NULL);
        CHECK(aw_sandbox_set_watchdog_signal(SIGUSR1, &err) < 0);
        CHECK(strstr(err.msg, "real-time") != NULL);
        CHECK(aw_sandbox_set_watchdog_signal(-5, &err) < 0);
        loop_times_out();
        CHECK(aw_sandbox_set_watchdog_signal(SIGRTMIN + 8, &err) < 0);
        CHECK(strstr(err.msg, "before") != NULL);
        break;
    }
    return test_done();
}

int main(void)
{
    if (getenv("AIWOLF_SANDBOX_NO_WATCHDOG")) {
        printf("skipped: the watchdog is off in this run\n");
        return 0;
    }
    for (int which = 0; which < 4; which++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            int rc = scenario(which);
            fflush(NULL);
            _exit(rc);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "scenario %d failed", which);
    }
    return test_done();
}
