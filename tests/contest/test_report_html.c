/* The report page's injection (report_html.c): the JSON goes inside the
 * data element once, with '<', '>' and '&' escaped so that no name can end
 * the element, the JSON keeps its value, and a failed write is -1. What the
 * page draws is report_browser.sh's part. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_html.h"
#include "test.h"

static const char open_tag[] = "<script id=\"results\" type=\"application/json\">";

/* The page written for json (len bytes), in a new buffer (caller frees). */
static char *render(const char *json, size_t len, size_t *outlen)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    CHECK(f != NULL);
    if (!f)
        return NULL;
    CHECK_INT(aw_contest_write_html(f, json, len), 0);
    CHECK_INT(fclose(f), 0);
    *outlen = n;
    return buf;
}

/* What is between the data element's tags, in a new string. */
static char *data_of(const char *page)
{
    const char *a = strstr(page, open_tag);
    CHECK(a != NULL);
    if (!a)
        return NULL;
    a += strlen(open_tag);
    const char *b = strstr(a, "</script>");
    CHECK(b != NULL);
    if (!b)
        return NULL;
    size_t n = (size_t)(b - a);
    char *s = malloc(n + 1);
    memcpy(s, a, n);
    s[n] = 0;
    return s;
}

/* JSON's \u003c, \u003e, \u0026 back to the characters, in place. */
static void unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r;) {
        if (strncmp(r, "\\u003c", 6) == 0) { *w++ = '<'; r += 6; }
        else if (strncmp(r, "\\u003e", 6) == 0) { *w++ = '>'; r += 6; }
        else if (strncmp(r, "\\u0026", 6) == 0) { *w++ = '&'; r += 6; }
        else *w++ = *r++;
    }
    *w = 0;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void test_hostile_name(void)
{
    const char *json = "{\"entries\":[{\"name\":\"</script><script>alert(\\\"x\\\")</script><!--"
                       " <img src=x onerror=alert(1)> & \\\\<\"}]}";
    size_t n = 0;
    char *page = render(json, strlen(json), &n);
    if (!page)
        return;
    CHECK_INT(strlen(page), n);
    CHECK_INT(count(page, open_tag), 1);
    CHECK_INT(count(page, "@RESULTS@"), 0);
    char *data = data_of(page);
    if (data) {
        CHECK(strchr(data, '<') == NULL);
        CHECK(strchr(data, '>') == NULL);
        CHECK(strchr(data, '&') == NULL);
        CHECK(strstr(data, "\\u003c/script\\u003e") != NULL);
        /* after "\\" (an escaped backslash) comes a whole \u003c */
        CHECK(strstr(data, "\\\\\\u003c\"") != NULL);
        unescape(data);
        CHECK_STR(data, json);
        free(data);
    }
    CHECK(strstr(page, "<!DOCTYPE html>") == page);
    CHECK(strstr(page, "</html>") != NULL);
    free(page);
}

static void test_plain_and_empty(void)
{
    const char *json = "{\"format\":\"aiwolf-contest-results\",\"version\":1}";
    size_t n = 0;
    char *page = render(json, strlen(json), &n);
    if (page) {
        char *data = data_of(page);
        if (data)
            CHECK_STR(data, json);  /* nothing to escape: unchanged */
        free(data);
        free(page);
    }
    page = render(NULL, 0, &n);  /* no results: the page says so */
    if (page) {
        char *data = data_of(page);
        if (data)
            CHECK_STR(data, "");
        free(data);
        free(page);
    }
    /* only len bytes are read */
    page = render("{}<<<", 2, &n);
    if (page) {
        char *data = data_of(page);
        if (data)
            CHECK_STR(data, "{}");
        free(data);
        free(page);
    }
}

static void test_write_error(void)
{
    FILE *f = fopen("/dev/full", "w");
    if (!f) {
        printf("no /dev/full: write error case skipped\n");
        return;
    }
    setvbuf(f, NULL, _IONBF, 0);
    CHECK_INT(aw_contest_write_html(f, "{}", 2), -1);
    fclose(f);
}

int main(void)
{
    test_hostile_name();
    test_plain_and_empty();
    test_write_error();
    return test_done();
}
