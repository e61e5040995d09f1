/* fuzz_gunzip: libFuzzer target for aw_gunzip (built only with
 * -DAIWOLF_FUZZ=ON and clang). Any input, under a large and a small output
 * limit, either inflates to at most the limit (NUL-terminated) or is
 * refused with one of the documented messages; the same input gives the
 * same answer under both limits when it fits the small one, and every
 * output is refused by a limit one byte shorter. Uses gzlog and util. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gzlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int known_message(const char *msg)
{
    return strcmp(msg, "truncated gzip data") == 0 || strncmp(msg, "not valid gzip data: ", 21) == 0 ||
           strncmp(msg, "gzip data inflates to more than ", 32) == 0 || strncmp(msg, "out of memory", 13) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    aw_error err;
    size_t big_len = 0, small_len = 0;
    char *big = aw_gunzip(in, size, &big_len, (size_t)1 << 22, &err);
    if (!big && !known_message(err.msg))
        abort();
    if (big && (big_len > (size_t)1 << 22 || big[big_len] != '\0'))
        abort();
    char *small = aw_gunzip(in, size, &small_len, 4096, &err);
    if (!small && !known_message(err.msg))
        abort();
    if (small && (!big || small_len != big_len || memcmp(small, big, big_len) != 0))
        abort();
    if (big && !small && big_len <= 4096)
        abort();
    if (big && big_len > 0) {
        char *shorter = aw_gunzip(in, size, &small_len, big_len - 1, &err);
        if (shorter || strncmp(err.msg, "gzip data inflates to more than ", 32) != 0)
            abort();
    }
    free(small);
    free(big);
    return 0;
}
