/* test_lines.h: a text (a game log) as an array of its lines, to change
 * lines and join them again — what the log checker's and the replay's
 * mutation tests share (tests/logcheck/test_mutations.c, tests/replay/
 * test_replay_mutations.c). Needs core (util). */
#ifndef TESTS_TEST_LINES_H
#define TESTS_TEST_LINES_H

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* line[0..n) are malloc'd strings without their newlines. */
typedef struct test_lines {
    char **line;
    long n;
} test_lines;

/* Every line of text, the last one too when no newline ends it. */
static __attribute__((unused)) test_lines test_lines_split(const char *text)
{
    test_lines L = {NULL, 0};
    long cap = 64;
    L.line = malloc((size_t)cap * sizeof *L.line);
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (L.n == cap)
            L.line = realloc(L.line, (size_t)(cap *= 2) * sizeof *L.line);
        L.line[L.n++] = aw_xstrndup(p, n);
        p += n + (nl ? 1 : 0);
    }
    return L;
}

static __attribute__((unused)) test_lines test_lines_copy(const test_lines *L)
{
    test_lines c = {malloc(sizeof(char *) * (size_t)(L->n + 2)), L->n};
    for (long i = 0; i < L->n; i++)
        c.line[i] = aw_xstrdup(L->line[i]);
    return c;
}

static __attribute__((unused)) void test_lines_free(test_lines *L)
{
    for (long i = 0; i < L->n; i++)
        free(L->line[i]);
    free(L->line);
    L->line = NULL;
    L->n = 0;
}

/* Replaces line i by a copy of s. */
static __attribute__((unused)) void test_lines_set(test_lines *L, long i, const char *s)
{
    free(L->line[i]);
    L->line[i] = aw_xstrdup(s);
}

/* The lines joined, each ended by eol (malloc'd, NUL-terminated; *len its
 * length). */
static __attribute__((unused)) char *test_lines_join(const test_lines *L, const char *eol, size_t *len)
{
    aw_buf b;
    aw_buf_init(&b);
    for (long i = 0; i < L->n; i++) {
        aw_buf_adds(&b, L->line[i]);
        aw_buf_adds(&b, eol);
    }
    if (!b.data)
        aw_buf_add(&b, "", 0);
    *len = b.len;
    return b.data;
}

#endif
