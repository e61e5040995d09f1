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
#include "options.h"
#include "util.h"
#include "viewer.h"
#include "web.h"

/* --help: the head, the options (the table in cmd_view), the foot. */
static const char view_head[] =
    "usage: aiwolf view [OPTIONS] FILE|DIR...\n"
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
    "options:\n";
static const char view_foot[] =
    "\n"
    "exit status: 0 stopped by Ctrl-C, 2 bad usage, a missing file, or an\n"
    "             address or port that cannot be used\n";

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
    aw_opt_list file_list = {(const char **)files, 0, argc, NULL};
    const aw_opt opts[] = {
        {.name = "--host", .arg = "H", .kind = AW_OPT_STR, .to = &host,
         .help = "address to listen on (default 127.0.0.1: this machine\n"
                 "only; 0.0.0.0 lets other machines in)"},
        {.name = "--port", .arg = "P", .kind = AW_OPT_LONG, .to = &port, .min = 0, .max = 65535,
         .bad = "'%s': give a number from 0 to 65535", .help = "port (default 0: any free port)"},
        {.name = "--events", .arg = "F", .kind = AW_OPT_LIST, .to = &file_list,
         .help = "an events file to show too (same as giving it as FILE)"},
        {.name = "--open", .kind = AW_OPT_FLAG, .to = &open_it,
         .help = "open the page in the desktop's browser (xdg-open)"},
        {.name = "--help", .alias = "-h", .kind = AW_OPT_HELP, .help = "show this help"},
        {0},
    };
    const aw_opts_cmd cmd = {"view", view_head, opts, view_foot, &file_list, 16};
    int prc = aw_opts_parse(&cmd, argc, argv, 1);
    if (prc != AW_OPTS_OK) {
        free(files);
        return prc == AW_OPTS_EXIT ? 0 : 2;
    }
    nfiles = file_list.n;
    if (nfiles == 0) {
        fprintf(stderr, "aiwolf view: give a game log, an events file or a folder (aiwolf view --help)\n");
        free(files);
        return 2;
    }
    aw_error err;
    aw_viewer *v = aw_viewer_new(files, nfiles, &err);
    free(files);
    if (!v) {
        aw_cli_line(stderr, "aiwolf view: %s", err.msg);
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
        aw_cli_line(stderr, "aiwolf view: %s", err.msg);
        aw_viewer_free(v);
        return 2;
    }
    aw_viewer_routes(v, w);
    char url[128];
    snprintf(url, sizeof url, "http://%s:%d/", strcmp(host, "localhost") == 0 ? "127.0.0.1" : host, aw_web_port(w));
    aw_cli_line(stdout,
                "aiwolf view: %zu game%s at %s (Ctrl-C stops)", aw_viewer_count(v), aw_viewer_count(v) == 1 ? "" : "s",
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
