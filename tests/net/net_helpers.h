/* net_helpers.h: what the network tests share — starting the aiwolf binary
 * with its stderr in a file, reading and writing lines on a socket with a
 * deadline, waiting for a process. */
#ifndef AW_NET_HELPERS_H
#define AW_NET_HELPERS_H

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *bin;

/* Starts `aiwolf CMD ARGS...` with stdout and stderr into outpath. */
static inline pid_t spawn_aiwolf(const char *cmd, const char *outpath, char *const args[])
{
    char *argv[48] = {(char *)bin, (char *)cmd};
    int n = 2;
    for (int i = 0; args[i] && n < 47; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        FILE *e = freopen(outpath, "w", stderr);
        if (e)
            dup2(fileno(e), 1);
        execv(bin, argv);
        _exit(127);
    }
    return pid;
}

static inline int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                            .sin_port = htons((uint16_t)port)};
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* Reads one line (without newline) within ms; returns its length or -1. */
static inline long read_line(int fd, char *buf, size_t cap, int ms)
{
    size_t n = 0;
    while (n + 1 < cap) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, ms) <= 0)
            return -1;
        ssize_t r = read(fd, buf + n, 1);
        if (r <= 0)
            return -1;
        if (buf[n] == '\n') {
            buf[n] = 0;
            return (long)n;
        }
        n++;
    }
    return -1;
}

static inline int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Waits up to ms for pid; returns its exit status, 128+signal, or -1 (then
 * it is killed). */
static inline int wait_exit(pid_t pid, int ms)
{
    for (int i = 0; i < ms / 10; i++) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

static inline bool file_has(const char *path, const char *what)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return strstr(buf, what) != NULL;
}

#endif
