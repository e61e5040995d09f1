/* The loop check and replay share: read each named file (or standard input
 * for "-"), inflate it when it is gzip (by its first bytes, whatever its
 * name), hand its text to the command, and combine the exit statuses. */
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
