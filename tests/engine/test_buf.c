/* The byte buffer (util.h): printf-style appends of every length around the
 * room a buffer starts with (a text is formatted once when it fits, again
 * when it does not), and decimal integers as printf writes them. The CSV
 * game log is written with these. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Text for terminals (aw_buf_add_term, aw_term): what steers a terminal or
 * hides text comes escaped, printable UTF-8 as it is; every byte value
 * alone and every UTF-8 character of the first planes, when escaped, holds
 * no control byte and no format character. */
static void test_term(void)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"\x1b]0;PWNED\x07" "evil\x1b[2J", "\\e]0;PWNED\\x07evil\\e[2J"},
        {"a\tb\nc\rd\\e", "a\\tb\\nc\\rd\\\\e"},
        {"\x7f\x01", "\\x7f\\x01"},
        {"caf\xc3\xa9 \xe4\xba\xba\xe7\x8b\xbc \xf0\x9f\x90\xba", "caf\xc3\xa9 \xe4\xba\xba\xe7\x8b\xbc \xf0\x9f\x90\xba"},
        {"\xe2\x80\xae" "evil\xe2\x80\x8b", "\\u{202e}evil\\u{200b}"},
        {"\xc2\x9b" "2J", "\\u{009b}2J"},                 /* C1 CSI */
        {"\xff\xc3(\xed\xa0\x80", "\\xff\\xc3(\\xed\\xa0\\x80"}, /* not UTF-8 */
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        aw_buf b;
        aw_buf_init(&b);
        aw_buf_add_term(&b, cases[i].in, strlen(cases[i].in));
        CHECK_MSG(strcmp(b.data ? b.data : "", cases[i].want) == 0, "case %zu: got %s", i, b.data ? b.data : "");
        CHECK(strcmp(aw_term(cases[i].in).s, cases[i].want) == 0);
        aw_buf_free(&b);
    }
    CHECK(strcmp(aw_term(NULL).s, "(null)") == 0);
    /* every byte; every character up to U+FFFF */
    int bad = 0;
    for (unsigned c = 0; c < 0x10000; c++) {
        char in[4];
        size_t n = 0;
        if (c < 0x100 && c >= 0x80)
            in[n++] = (char)c; /* a lone byte: not UTF-8 */
        if (c < 0x80) {
            in[n++] = (char)c;
        } else if (c >= 0x80 && c < 0x800) {
            in[n++] = (char)(0xc0 | (c >> 6));
            in[n++] = (char)(0x80 | (c & 0x3f));
        } else if (c >= 0x800 && (c < 0xd800 || c > 0xdfff)) {
            in[n++] = (char)(0xe0 | (c >> 12));
            in[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
            in[n++] = (char)(0x80 | (c & 0x3f));
        }
        aw_buf b;
        aw_buf_init(&b);
        aw_buf_add_term(&b, in, n);
        for (size_t k = 0; k < b.len; k++)
            if ((unsigned char)b.data[k] < 0x20 || b.data[k] == 0x7f) {
                if (bad++ < 5)
                    CHECK_MSG(0, "U+%04X gives byte %02x", c, (unsigned char)b.data[k]);
                break;
            }
        if ((c == 0x9b || c == 0x202e) && b.len == n)
            CHECK_MSG(0, "U+%04X passes as it is", c);
        aw_buf_free(&b);
    }
    CHECK_INT(bad, 0);
    /* too long for aw_term: cut, never inside a character */
    char big[3000];
    for (size_t i = 0; i + 2 < sizeof big; i += 2) {
        big[i] = '\xc3';
        big[i + 1] = '\xa9';
    }
    big[sizeof big - 2] = 'x';
    big[sizeof big - 1] = 0;
    aw_term_text t = aw_term(big);
    size_t tl = strlen(t.s);
    CHECK(tl < sizeof t.s && tl > 900 && strcmp(t.s + tl - 3, "...") == 0);
    CHECK(aw_utf8_char_len(t.s + tl - 5, 2) == 2); /* the last character before "..." is whole */
}

/* A CSV field: quoted when it must be, and never a raw control byte, line
 * break or invalid UTF-8 (results.csv and --summary csv:- reach terminals). */
static void test_csv_field(void)
{
    static const char *const in[] = {"plain", "a,b", "say \"hi\"", "\x1b]0;t\x07", "two\nlines", "bad\xff",
                                     "\xe2\x80\xaeRTL"};
    static const char *const want[] = {"plain",          "\"a,b\"",   "\"say \"\"hi\"\"\"", "\\e]0;t\\x07",
                                       "two\\nlines",   "bad\\xff", "\\u{202e}RTL"};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) {
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        aw_csv_field(f, in[i]);
        fclose(f);
        CHECK_STR(buf, want[i]);
        free(buf);
    }
}

int main(void)
{
    test_printf_lengths();
    test_integers();
    test_term();
    test_csv_field();
    return test_done();
}
