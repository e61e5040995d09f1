/* The byte buffer (util.h): printf-style appends of every length around the
 * room a buffer starts with (a text is formatted once when it fits, again
 * when it does not), and decimal integers as printf writes them. The CSV
 * game log is written with these. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "util.h"

static void test_printf_lengths(void)
{
    char want[700], text[600];
    for (int start = 0; start < 70; start += 23) {
        for (int n = 0; n < 300; n++) {
            aw_buf b;
            aw_buf_init(&b);
            memset(want, 'p', (size_t)start);
            want[start] = '\0';
            aw_buf_add(&b, want, (size_t)start);
            memset(text, 'x', (size_t)n);
            text[n] = '\0';
            aw_buf_printf(&b, "%s|%d", text, n);
            snprintf(want + start, sizeof want - (size_t)start, "%.*s|%d", n, text, n);
            CHECK_MSG(b.len == strlen(want) && strcmp(b.data, want) == 0, "start %d, length %d", start, n);
            aw_buf_free(&b);
        }
    }
    aw_buf b;
    aw_buf_init(&b);
    aw_buf_printf(&b, "%s", "");
    CHECK(b.len == 0 && b.data && b.data[0] == '\0');
    aw_buf_free(&b);
}

static void test_integers(void)
{
    const long long vs[] = {0, 1, -1, 9, 10, 99, 100, -100, 123456789, INT_MAX, INT_MIN, LLONG_MAX, LLONG_MIN};
    aw_buf b;
    aw_buf_init(&b);
    char want[512] = "";
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        aw_buf_addi(&b, vs[i]);
        aw_buf_addc(&b, ',');
        snprintf(want + strlen(want), sizeof want - strlen(want), "%lld,", vs[i]);
    }
    CHECK_MSG(strcmp(b.data, want) == 0, "got %s, want %s", b.data, want);
    aw_buf_free(&b);
}

int main(void)
{
    test_printf_lengths();
    test_integers();
    return test_done();
}
