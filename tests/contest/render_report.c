/* render_report RESULTS.json REPORT.html: writes the contest report page for
 * a results file ("-" reads standard input), as `aiwolf contest` does. The
 * browser test (report_browser.sh) opens what it writes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_html.h"
#include "util.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: render_report RESULTS.json REPORT.html\n");
        return 2;
    }
    aw_error err = {0};
    size_t len = 0;
    char *json = aw_read_input(argv[1], &len, &err);
    if (!json) {
        fprintf(stderr, "render_report: %s\n", err.msg);
        return 1;
    }
    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        fprintf(stderr, "render_report: %s: %s\n", argv[2], strerror(errno));
        free(json);
        return 1;
    }
    int rc = aw_contest_write_html(out, json, len);
    if (fclose(out) != 0)
        rc = -1;
    free(json);
    if (rc != 0) {
        fprintf(stderr, "render_report: %s: cannot write the page\n", argv[2]);
        return 1;
    }
    return 0;
}
