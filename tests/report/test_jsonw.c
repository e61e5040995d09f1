/* The reports' JSON writer (jsonw.c): strings escaped (quotes, backslashes,
 * control bytes, bad UTF-8), NULL as null, numbers with their digits and
 * null where JSON has no number (NaN, infinities), keys with their
 * separators, and the HTML-safe copy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "jsonw.h"
#include "test.h"

static void strings(void)
{
    aw_buf b;
    aw_buf_init(&b);
    aw_json_str(&b, "a\"b\\c\n\x01\x7f\xff" "é");
    CHECK_STR(b.data, "\"a\\\"b\\\\c\\u000a\\u0001\\u007f\\ufffdé\"");
    b.len = 0;
    aw_json_str(&b, NULL);
    aw_buf_addc(&b, 0);
    CHECK_STR(b.data, "null");
    b.len = 0;
    aw_json_kstr(&b, NULL, "name", "x");
    aw_json_kstr(&b, ", ", "k\"ey", NULL);
    aw_buf_addc(&b, 0);
    CHECK_STR(b.data, "\"name\": \"x\", \"k\\\"ey\": null");
    aw_buf_free(&b);
}

static void numbers(void)
{
    aw_buf b;
    aw_buf_init(&b);
    aw_json_knum(&b, "{", "rate", 0.4375, 6);
    aw_json_knum(&b, ", ", "nan", nan(""), 6);
    aw_json_knum(&b, ", ", "inf", -INFINITY, 1);
    aw_json_knum(&b, ", ", "one", 0.05, 1);
    aw_json_kint(&b, ", ", "n", -12345678901LL);
    aw_buf_addc(&b, '}');
    aw_buf_addc(&b, 0);
    CHECK_STR(b.data, "{\"rate\": 0.437500, \"nan\": null, \"inf\": null, \"one\": 0.1, \"n\": -12345678901}");
    aw_buf_free(&b);
}

static void html_safe(void)
{
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    const char json[] = "{\"a\": \"</script><!--&x>\"}";
    CHECK_INT(aw_json_write_html_safe(f, json, sizeof json - 1), 0);
    fclose(f);
    CHECK_STR(out, "{\"a\": \"\\u003c/script\\u003e\\u003c!--\\u0026x\\u003e\"}");
    free(out);
    /* a write that fails says so */
    f = fopen("/dev/full", "w");
    if (f) {
        setvbuf(f, NULL, _IONBF, 0);
        CHECK_INT(aw_json_write_html_safe(f, json, sizeof json - 1), -1);
        fclose(f);
    }
}

int main(void)
{
    strings();
    numbers();
    html_safe();
    return test_done();
}
