/* report_html: writes the report page with the results injected (see
 * report_html.h). */
#include "report_html.h"

#include <errno.h>
#include <string.h>

#include "jsonw.h"
#include "report_template.h"

/* Where the results go in report.html: the only occurrence (the page's own
 * script spells it in two pieces so that it never matches). */
static const char placeholder[] = "@RESULTS@";

static int put(FILE *out, const char *s, size_t n)
{
    return n == 0 || fwrite(s, 1, n, out) == n ? 0 : -1;
}

int aw_contest_write_html(FILE *out, const char *results_json, size_t len)
{
    const char *page = aw_report_template;
    const char *at = strstr(page, placeholder);
    if (!results_json)
        len = 0;
    if (!at) { /* a page built without its placeholder: a build defect */
        errno = EINVAL;
        return -1;
    }
    size_t head = (size_t)(at - page), skip = head + sizeof placeholder - 1;
    if (put(out, page, head) != 0 || aw_json_write_html_safe(out, results_json, len) != 0 ||
        put(out, page + skip, aw_report_template_len - skip) != 0 || ferror(out))
        return -1;
    return 0;
}
