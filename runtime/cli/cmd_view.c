/* cmd_view: `aiwolf view`, which serves game logs, events files and contest
 * folders to a browser page (runtime/web: viewer, viewdata, the pages) until
 * Ctrl-C. This file only handles options, signals and the URL. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "util.h"
#include "viewer.h"
#include "web.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: aiwolf view [OPTIONS] FILE|DIR...\n"
                 "\n"
                 "Shows games in a browser: serves a page on http://HOST:PORT/ that lists\n"
                 "the games given and shows each one day by day: the players and their\n"
                 "roles (hidden until revealed, with a toggle), talks and whispers as\n"
                 "readable sentences (English or Japanese) with the protocol text, votes\n"
                 "as a table per day, divinations, guards, attacks, executions and the\n"
                 "result; filters per agent; keys: left/right (or j/k) day by day.\n"
                 "Prints the URL and serves until Ctrl-C.\n"
                 "\n"
                 "FILE is a game log (the official CSV format, which 'aiwolf play --log'\n"
                 "writes), the same compressed with gzip (.log.gz), or an events file\n"
                 "('aiwolf play --events': JSON lines with faults, substitutes and time\n"
                 "per call too). DIR is a contest's folder (games.tsv, logs/, report.html:\n"
                 "a searchable list of its games, filtered by entry and by fault; each\n"
                 "game with its entries' names beside the agents' own and its faults'\n"
                 "messages; its report) or a folder of game files. Only these files\n"
                 "are ever served.\n"
                 "\n"
                 "options:\n"
                 "  --host H      address to listen on (default 127.0.0.1: this machine\n"
                 "                only; 0.0.0.0 lets other machines in)\n"
                 "  --port P      port (default 0: any free port)\n"
                 "  --events F    an events file to show too (same as giving it as FILE)\n"
                 "  --open        open the page in the desktop's browser (xdg-open)\n"
                 "  -h, --help    show this help\n"
                 "\n"
                 "exit status: 0 stopped by Ctrl-C, 2 bad usage, a missing file, or an\n"
                 "             address or port that cannot be used\n");
}

static void open_browser(const char *url)
{
    pid_t pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, 1);
            dup2(devnull, 2);
        }
        execlp("xdg-open", "xdg-open", url, (char *)NULL);
        _exit(127);
    }
}

int cmd_view(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    long port = 0;
    bool open_it = false;
    char **files = aw_xcalloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0;
    int status = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            free(files);
            return 0;
        } else if (strcmp(a, "--host") == 0 && i + 1 < argc) {
            host = argv[++i];
        } else if (strcmp(a, "--port") == 0 && i + 1 < argc) {
            if (aw_parse_long(argv[++i], 0, 65535, &port) != 0) {
                fprintf(stderr, "aiwolf view: --port %s: give a number from 0 to 65535\n", argv[i]);
                free(files);
                return 2;
            }
        } else if (strcmp(a, "--events") == 0 && i + 1 < argc) {
            files[nfiles++] = argv[++i];
        } else if (strcmp(a, "--open") == 0) {
            open_it = true;
        } else if (strcmp(a, "--") == 0) {
            while (++i < argc)
                files[nfiles++] = argv[i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "aiwolf view: unknown option '%s' (aiwolf view --help lists them)\n", a);
            free(files);
            return 2;
        } else {
            files[nfiles++] = argv[i];
        }
    }
    if (nfiles == 0) {
        fprintf(stderr, "aiwolf view: give a game log, an events file or a folder (aiwolf view --help)\n");
        free(files);
        return 2;
    }
    aw_error err;
    aw_viewer *v = aw_viewer_new(files, nfiles, &err);
    free(files);
    if (!v) {
        fprintf(stderr, "aiwolf view: %s\n", err.msg);
        return 2;
    }
    /* SIGINT and SIGTERM are taken by sigwait below: blocked first, so the
     * web's thread never gets them. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    aw_web_opts o;
    memset(&o, 0, sizeof o);
    o.host = host;
    o.port = (int)port;
    aw_web *w = aw_web_start_thread(&o, &err);
    if (!w) {
        fprintf(stderr, "aiwolf view: %s\n", err.msg);
        aw_viewer_free(v);
        return 2;
    }
    aw_viewer_routes(v, w);
    char url[128];
    snprintf(url, sizeof url, "http://%s:%d/", strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, aw_web_port(w));
    printf("aiwolf view: %zu game%s at %s (Ctrl-C stops)\n", aw_viewer_count(v), aw_viewer_count(v) == 1 ? "" : "s",
           url);
    fflush(stdout);
    if (open_it)
        open_browser(url);
    int sig = 0;
    sigwait(&sigs, &sig);
    aw_web_stop(w);
    aw_viewer_free(v);
    status = 0;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    printf("aiwolf view: stopped\n");
    return status;
}
