/* The loop check and replay share: read each named file (or standard input
 * for "-"), hand its text to the command, and combine the exit statuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"

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
