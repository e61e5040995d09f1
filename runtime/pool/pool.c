/* pool: forked workers sending fixed-size records (see pool.h). */
#include "pool.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int aw_pool_run(const aw_pool_opts *o, aw_error *err)
{
    int jobs = o->jobs;
    pid_t *pid = aw_xcalloc((size_t)jobs, sizeof *pid);
    int *fd = aw_xcalloc((size_t)jobs, sizeof *fd);
    size_t *have = aw_xcalloc((size_t)jobs, sizeof *have);
    char *in = aw_xcalloc((size_t)jobs, o->rec_size);
    fflush(NULL); /* nothing buffered here is written twice */
    int started = 0;
    for (int j = 0; j < jobs; j++) {
        int p[2];
        if (pipe(p) != 0)
            break;
        pid_t c = fork();
        if (c < 0) {
            close(p[0]);
            close(p[1]);
            break;
        }
        if (c == 0) {
            /* Die with the parent (a second Ctrl-C ends it at once). */
            prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
            close(p[0]);
            for (int k = 0; k < j; k++)
                close(fd[k]);
            o->work(o->ud, j, p[1]);
            fflush(NULL);
            _exit(0);
        }
        close(p[1]);
        pid[j] = c;
        fd[j] = p[0];
        started++;
    }
    int status = AW_POOL_DONE;
    if (started < jobs) {
        /* Fewer workers than asked: the work of the missing ones would be
         * lost, so stop them all and say so. */
        for (int j = 0; j < started; j++)
            kill(pid[j], SIGKILL);
        aw_fail(err, AW_EIO, "cannot start %d worker processes: %s", jobs, strerror(errno));
        status = AW_POOL_NO_START;
    }
    int open = status == AW_POOL_DONE ? started : 0;
    bool told = false;
    while (open > 0) {
        /* A stop (Ctrl-C) here reaches the workers too. */
        if (o->stop && *o->stop && !told) {
            told = true;
            for (int j = 0; j < started; j++)
                kill(pid[j], SIGINT);
        }
        struct pollfd pf[AW_POOL_MAX_JOBS];
        int map[AW_POOL_MAX_JOBS], np = 0;
        for (int j = 0; j < jobs && np < AW_POOL_MAX_JOBS; j++)
            if (fd[j] >= 0) {
                pf[np] = (struct pollfd){fd[j], POLLIN, 0};
                map[np++] = j;
            }
        int pr = poll(pf, (nfds_t)np, 500);
        for (int i = 0; i < np && pr > 0; i++) {
            if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int j = map[i];
            char *rec = in + (size_t)j * o->rec_size;
            ssize_t n = read(fd[j], rec + have[j], o->rec_size - have[j]);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                /* Ended without its end record: it died. */
                close(fd[j]);
                fd[j] = -1;
                open--;
                status = AW_POOL_DIED;
                continue;
            }
            have[j] += (size_t)n;
            if (have[j] < o->rec_size)
                continue;
            have[j] = 0;
            if (o->take(o->ud, j, rec)) {
                close(fd[j]);
                fd[j] = -1;
                open--;
            }
        }
        if (o->tick)
            o->tick(o->ud);
    }
    for (int j = 0; j < started; j++) {
        while (waitpid(pid[j], NULL, 0) < 0 && errno == EINTR)
            ;
    }
    free(pid);
    free(fd);
    free(have);
    free(in);
    return status;
}
