/* reports: the contest's report files (see reports.h). */
#include "reports.h"

#include <limits.h>
#include <stdlib.h>

#include "report_html.h"

static int contest_md(const aw_report *r, FILE *out)
{
    aw_contest_write_md(r->stats, r->ctx, out);
    return ferror(out) ? -1 : 0;
}

static int contest_csv(const aw_report *r, FILE *out)
{
    aw_contest_write_csv(r->stats, r->ctx, out);
    return ferror(out) ? -1 : 0;
}

static int contest_json(const aw_report *r, FILE *out)
{
    aw_buf json;
    aw_buf_init(&json);
    aw_contest_write_json(r->stats, r->ctx, &json);
    fwrite(json.data, 1, json.len, out);
    aw_buf_free(&json);
    return ferror(out) ? -1 : 0;
}

static int contest_html(const aw_report *r, FILE *out)
{
    aw_buf json;
    aw_buf_init(&json);
    aw_contest_write_json(r->stats, r->ctx, &json);
    int rc = aw_contest_write_html(out, json.data, json.len);
    aw_buf_free(&json);
    return rc;
}

const aw_report_writer aw_contest_writers[] = {
    {"md", "report.md", contest_md},
    {"csv", "results.csv", contest_csv},
    {"json", "results.json", contest_json},
    {"html", "report.html", contest_html},
    {NULL, NULL, NULL},
};

int aw_contest_write_reports(const char *dir, const aw_contest_stats *s, const aw_contest_info *ci, FILE *md_too)
{
    aw_report rep = {.stats = s, .names = ci->names, .ctx = ci};
    int rc = 0;
    for (const aw_report_writer *w = aw_contest_writers; w->name; w++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, w->file);
        FILE *f = fopen(path, "we");
        if (!f) {
            rc = -1;
            continue;
        }
        int wr = w->write(&rep, f);
        if (fclose(f) != 0 || wr < 0) {
            fprintf(stderr, "aiwolf contest: writing %s failed\n", path);
            rc = -1;
        }
    }
    if (md_too)
        aw_report_writer_find(aw_contest_writers, "md")->write(&rep, md_too);
    return rc;
}
