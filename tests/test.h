/* test.h: the C tests' assertion macros. A failed check prints both values
 * and file:line and the test goes on; test_done() prints the totals and
 * returns the exit status for main. */
#ifndef AW_TEST_H
#define AW_TEST_H

#include <stdio.h>
#include <string.h>

static int test_failures;
static int test_checks;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        test_checks++;                                                               \
        if (!(cond)) {                                                               \
            test_failures++;                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

#define CHECK_MSG(cond, ...)                                                       \
    do {                                                                           \
        test_checks++;                                                             \
        if (!(cond)) {                                                             \
            test_failures++;                                                       \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
        }                                                                          \
    } while (0)

#define CHECK_INT(a, b)                                                                            \
    do {                                                                                           \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                      \
        test_checks++;                                                                             \
        if (va_ != vb_) {                                                                          \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, va_, vb_); \
        }                                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                                          \
    do {                                                                                         \
        const char *sa_ = (a), *sb_ = (b);                                                       \
        test_checks++;                                                                           \
        if (!sa_ || !sb_ || strcmp(sa_, sb_) != 0) {                                             \
            test_failures++;                                                                     \
            fprintf(stderr, "%s:%d: %s == %s failed:\n  got      \"%s\"\n  expected \"%s\"\n", __FILE__, \
                    __LINE__, #a, #b, sa_ ? sa_ : "(null)", sb_ ? sb_ : "(null)");               \
        }                                                                                        \
    } while (0)

static inline int test_done(void)
{
    printf("%d checks: %d passed, %d failed\n", test_checks, test_checks - test_failures, test_failures);
    return test_failures ? 1 : 0;
}

#endif
