/* What commands share: the loop of check and replay (read each named file,
 * or standard input for "-", inflate it when it is gzip by its first bytes,
 * whatever its name, hand its text to the command, combine the exit
 * statuses), and --http's address for play and serve. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gzlog.h"
#include "util.h"

/* Takes text (read from a file) and returns the log in it: text itself, or
 * when it is gzip the inflated text (text is freed); NULL and err when the
 * gzip data is broken or too big. */
static char *inflate_if_gzip(char *text, size_t *len, aw_error *err)
{
    if (!aw_gzip_is(text, *len))
        return text;
    char *plain = aw_gunzip(text, *len, len, AW_GZLOG_MAX_LOG, err);
    free(text);
    return plain;
}

int aw_cli_each_file(const char *cmd, const char *const *files, int nfiles, aw_cli_file_fn fn, void *ud)
{
    int status = 0;
    for (int i = 0; i < nfiles; i++) {
        const char *path = files[i];
        size_t len = 0;
        aw_error err;
        char *text = aw_read_input(path, &len, &err);
        if (strcmp(path, "-") == 0)
            path = "<stdin>";
        int s;
        if (!text) {
            fprintf(stderr, "aiwolf %s: cannot read %s\n", cmd, err.msg);
            s = 2;
        } else if (!(text = inflate_if_gzip(text, &len, &err))) {
            fprintf(stderr, "aiwolf %s: %s: %s\n", cmd, path, err.msg);
            s = 2;
        } else {
            s = fn(ud, path, text, len);
            free(text);
        }
        if (s > status)
            status = s;
    }
    fflush(stdout);
    return status;
}

const char *aw_cli_rate(char *buf, size_t n, double rate)
{
    if (!(rate > 0))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, rate >= 10 ? "%.1f" : "%.2g", rate);
    return buf;
}

int aw_cli_parse_http(const char *v, char *host, size_t hostlen, int *port)
{
    const char *colon = strrchr(v, ':');
    long n;
    if (aw_parse_long(colon ? colon + 1 : v, 0, 65535, &n) != 0)
        return -1;
    if (colon) {
        size_t hl = (size_t)(colon - v);
        if (hl == 0 || hl >= hostlen)
            return -1;
        memcpy(host, v, hl);
        host[hl] = 0;
    } else {
        snprintf(host, hostlen, "127.0.0.1");
    }
    *port = (int)n;
    return 0;
}
