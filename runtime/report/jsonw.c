/* jsonw: the reports' JSON writer (see jsonw.h). */
#include "jsonw.h"

#include <math.h>
#include <string.h>

void aw_json_str(aw_buf *b, const char *s)
{
    if (!s)
        aw_buf_adds(b, "null");
    else
        aw_buf_add_json(b, s, strlen(s));
}

void aw_json_key(aw_buf *b, const char *sep, const char *key)
{
    if (sep)
        aw_buf_adds(b, sep);
    aw_json_str(b, key);
    aw_buf_adds(b, ": ");
}

void aw_json_num(aw_buf *b, double v, int digits)
{
    if (!isfinite(v))
        aw_buf_adds(b, "null");
    else
        aw_buf_printf(b, "%.*f", digits, v);
}

void aw_json_int(aw_buf *b, long long v)
{
    aw_buf_printf(b, "%lld", v);
}

void aw_json_kstr(aw_buf *b, const char *sep, const char *key, const char *s)
{
    aw_json_key(b, sep, key);
    aw_json_str(b, s);
}

void aw_json_knum(aw_buf *b, const char *sep, const char *key, double v, int digits)
{
    aw_json_key(b, sep, key);
    aw_json_num(b, v, digits);
}

void aw_json_kint(aw_buf *b, const char *sep, const char *key, long long v)
{
    aw_json_key(b, sep, key);
    aw_json_int(b, v);
}

static int put(FILE *out, const char *s, size_t n)
{
    return n == 0 || fwrite(s, 1, n, out) == n ? 0 : -1;
}

int aw_json_write_html_safe(FILE *out, const char *s, size_t len)
{
    size_t from = 0;
    for (size_t i = 0; i < len; i++) {
        const char *esc;
        switch (s[i]) {
        case '<': esc = "\\u003c"; break;
        case '>': esc = "\\u003e"; break;
        case '&': esc = "\\u0026"; break;
        default: continue;
        }
        if (put(out, s + from, i - from) != 0 || put(out, esc, 6) != 0)
            return -1;
        from = i + 1;
    }
    return put(out, s + from, len - from);
}
