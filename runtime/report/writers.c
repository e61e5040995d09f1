/* writers: tables of report formats (see writers.h). */
#include "writers.h"

#include <string.h>

const aw_report_writer *aw_report_writer_find(const aw_report_writer *t, const char *name)
{
    for (; t->name; t++)
        if (strcmp(t->name, name) == 0)
            return t;
    return NULL;
}

const aw_report_writer *aw_report_writer_spec(const aw_report_writer *t, const char *spec, const char **path)
{
    size_t sl = strlen(spec);
    const aw_report_writer *by_ext = NULL;
    for (; t->name; t++) {
        if (!t->file || t->file[0] != '.')
            continue;
        size_t nl = strlen(t->name), el = strlen(t->file);
        if (strncmp(spec, t->name, nl) == 0 && spec[nl] == ':') {
            *path = spec + nl + 1;
            return **path ? t : NULL;
        }
        if (!by_ext && sl > el && strcmp(spec + sl - el, t->file) == 0)
            by_ext = t;
    }
    if (by_ext)
        *path = spec;
    return by_ext;
}
