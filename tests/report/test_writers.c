/* Tables of report writers (writers.c): a row found by name; a --summary
 * spec as NAME:PATH or PATH.EXT (the prefix first; only rows with an
 * extension; an empty path is no spec); each row's function is the one
 * called. */
#include <stdio.h>

#include "test.h"
#include "writers.h"

static int calls[3];
static int w_text(const aw_report *r, FILE *out) { (void)r; (void)out; return calls[0]++; }
static int w_json(const aw_report *r, FILE *out) { (void)r; (void)out; return calls[1]++; }
static int w_csv(const aw_report *r, FILE *out) { (void)r; (void)out; return calls[2]++; }

static const aw_report_writer table[] = {
    {"text", NULL, w_text},
    {"json", ".json", w_json},
    {"csv", ".csv", w_csv},
    {NULL, NULL, NULL},
};

int main(void)
{
    CHECK(aw_report_writer_find(table, "text") == &table[0]);
    CHECK(aw_report_writer_find(table, "csv") == &table[2]);
    CHECK(aw_report_writer_find(table, "md") == NULL);
    const char *path = NULL;
    CHECK(aw_report_writer_spec(table, "out.json", &path) == &table[1]);
    CHECK_STR(path, "out.json");
    CHECK(aw_report_writer_spec(table, "csv:out.json", &path) == &table[2]);
    CHECK_STR(path, "out.json");
    CHECK(aw_report_writer_spec(table, "json:-", &path) == &table[1]);
    CHECK_STR(path, "-");
    CHECK(aw_report_writer_spec(table, "json:", &path) == NULL);
    CHECK(aw_report_writer_spec(table, ".csv", &path) == NULL);
    CHECK(aw_report_writer_spec(table, "a.csv", &path) == &table[2]);
    CHECK(aw_report_writer_spec(table, "text:out", &path) == NULL); /* no file format */
    CHECK(aw_report_writer_spec(table, "out.txt", &path) == NULL);
    aw_report rep = {0};
    aw_report_writer_find(table, "json")->write(&rep, stdout);
    CHECK_INT(calls[0] + calls[1] * 10 + calls[2] * 100, 10);
    return test_done();
}
