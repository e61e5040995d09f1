/* SHA-256 (sha256.h), which a contest's provenance gives for each entry:
 * the FIPS 180-4 example digests, a million 'a's, and every length from 0 to
 * 300 bytes (each side of the 55/56/64-byte padding edges) fed whole and in
 * pieces of every size, against `sha256sum` when the system has it. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "test.h"

static void test_vectors(void)
{
    char hex[65];
    aw_sha256_of("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    aw_sha256_of("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    aw_sha256_of(m, strlen(m), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    aw_sha256 s;
    aw_sha256_init(&s);
    char a[1000];
    memset(a, 'a', sizeof a);
    for (int i = 0; i < 1000; i++)
        aw_sha256_update(&s, a, sizeof a);
    aw_sha256_hex(&s, hex);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_lengths(void)
{
    unsigned char data[300];
    for (int i = 0; i < 300; i++)
        data[i] = (unsigned char)(i * 7 + 3);
    bool have_tool = system("command -v sha256sum >/dev/null 2>&1") == 0;
    for (size_t len = 0; len <= 300; len++) {
        char whole[65], pieces[65];
        aw_sha256_of(data, len, whole);
        for (size_t step = 1; step <= 65; step += 8) {
            aw_sha256 s;
            aw_sha256_init(&s);
            for (size_t off = 0; off < len; off += step)
                aw_sha256_update(&s, data + off, len - off < step ? len - off : step);
            aw_sha256_hex(&s, pieces);
            CHECK_MSG(strcmp(whole, pieces) == 0, "length %zu in pieces of %zu", len, step);
        }
        if (!have_tool || len % 7)
            continue;
        char path[] = "/tmp/aw_sha256_XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        if (fd < 0)
            continue;
        FILE *f = fdopen(fd, "wb");
        fwrite(data, 1, len, f);
        fclose(f);
        char cmd[128], out[100] = "";
        snprintf(cmd, sizeof cmd, "sha256sum %s", path);
        FILE *p = popen(cmd, "r");
        CHECK(p && fgets(out, sizeof out, p));
        if (p)
            pclose(p);
        remove(path);
        out[64] = 0;
        CHECK_MSG(strcmp(whole, out) == 0, "length %zu: ours %s, sha256sum %s", len, whole, out);
    }
}

int main(void)
{
    test_vectors();
    test_lengths();
    return test_done();
}
