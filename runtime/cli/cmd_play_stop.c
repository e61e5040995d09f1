/* cmd_play_stop: what Ctrl-C does to `play --http` beyond setting the
 * match's stop flag: the signal handler may only write to a pipe, so a
 * thread of this file reads it and runs the caller's fn outside the handler
 * (it stops waiting for people and ends --pace's pauses), so that the game
 * under way ends at once and the summary of what was played comes as
 * promptly as with plain play. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"

struct aw_play_stopper {
    int fds[2];
    pthread_t thread;
    void (*fn)(void *ud);
    void *ud;
};

static volatile sig_atomic_t kick_fd = -1;

void aw_play_stopper_kick(void)
{
    int fd = kick_fd;
    if (fd >= 0) {
        int saved = errno;
        ssize_t n = write(fd, "s", 1);
        (void)n; /* a full pipe already holds a kick */
        errno = saved;
    }
}

static void *stopper_main(void *arg)
{
    aw_play_stopper *st = arg;
    for (;;) {
        char c;
        ssize_t n = read(st->fds[0], &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || c == 'q')
            return NULL;
        if (st->fn)
            st->fn(st->ud);
    }
}

aw_play_stopper *aw_play_stopper_start(void (*fn)(void *ud), void *ud)
{
    aw_play_stopper *st = aw_xcalloc(1, sizeof *st);
    st->fn = fn;
    st->ud = ud;
    if (pipe(st->fds) != 0) {
        free(st);
        return NULL;
    }
    fcntl(st->fds[1], F_SETFL, O_NONBLOCK);
    fcntl(st->fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(st->fds[1], F_SETFD, FD_CLOEXEC);
    if (pthread_create(&st->thread, NULL, stopper_main, st) != 0) {
        close(st->fds[0]);
        close(st->fds[1]);
        free(st);
        return NULL;
    }
    kick_fd = st->fds[1];
    return st;
}

void aw_play_stopper_end(aw_play_stopper *st)
{
    if (!st)
        return;
    kick_fd = -1;
    /* the thread reads every kick before the 'q' (a pipe keeps order) */
    int fl = fcntl(st->fds[1], F_GETFL);
    fcntl(st->fds[1], F_SETFL, fl & ~O_NONBLOCK);
    ssize_t n;
    do
        n = write(st->fds[1], "q", 1);
    while (n < 0 && errno == EINTR);
    pthread_join(st->thread, NULL);
    close(st->fds[0]);
    close(st->fds[1]);
    free(st);
}
