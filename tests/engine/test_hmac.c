/* HMAC-SHA256, the constant-time comparison and base64url (hmac.h), what
 * `serve --nlp --jwt-secret` checks tokens with: the seven HMAC-SHA-256
 * test cases of RFC 4231 (keys shorter than, equal to and longer than a
 * block), base64url's alphabet, lengths and refusals. */
#include <stdio.h>
#include <string.h>

#include "hmac.h"
#include "test.h"

static void hex_of(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", (unsigned)d[i]);
}

static void check_hmac(const void *key, size_t klen, const char *msg, size_t mlen, const char *want)
{
    unsigned char mac[32];
    char hex[65];
    aw_hmac_sha256(key, klen, msg, mlen, mac);
    hex_of(mac, 32, hex);
    size_t n = strlen(want); /* test case 5 gives only the first 128 bits */
    CHECK_MSG(strncmp(hex, want, n) == 0, "key of %zu bytes: %s, want %s", klen, hex, want);
}

static void test_rfc4231(void)
{
    unsigned char k[131];
    char d[50];
    memset(k, 0x0b, 20);
    check_hmac(k, 20, "Hi There", 8, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    const char *m2 = "what do ya want for nothing?";
    check_hmac("Jefe", 4, m2, strlen(m2), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    memset(k, 0xaa, 20);
    memset(d, 0xdd, 50);
    check_hmac(k, 20, d, 50, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
    for (int i = 0; i < 25; i++)
        k[i] = (unsigned char)(i + 1);
    memset(d, 0xcd, 50);
    check_hmac(k, 25, d, 50, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
    memset(k, 0x0c, 20);
    check_hmac(k, 20, "Test With Truncation", 20, "a3b6167473100ee06e0c796c2955552b");
    memset(k, 0xaa, 131);
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    check_hmac(k, 131, m6, strlen(m6), "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    const char *m7 = "This is a test using a larger than block-size key and a larger than block-size data."
                     " The key needs to be hashed before being used by the HMAC algorithm.";
    check_hmac(k, 131, m7, strlen(m7), "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
    /* a key of exactly one block is used as it is, not hashed (the digest
     * Python's hmac module gives) */
    memset(k, 0x42, 64);
    check_hmac(k, 64, "x", 1, "c661f285f4bf22069fb45df0f88aa26b92a14329cd6e967b3311203a3e482e6d");
}

static void test_ct_equal(void)
{
    CHECK(aw_ct_equal("abcd", "abcd", 4));
    CHECK(!aw_ct_equal("abcd", "abce", 4));
    CHECK(!aw_ct_equal("xbcd", "abcd", 4));
    CHECK(aw_ct_equal("a", "b", 0));
}

static void check_b64(const char *in, long want_n, const char *want)
{
    unsigned char out[64];
    long n = aw_base64url_decode(in, strlen(in), out);
    CHECK_MSG(n == want_n, "'%s': %ld bytes, want %ld", in, n, want_n);
    if (n >= 0 && n == want_n)
        CHECK_MSG(memcmp(out, want, (size_t)n) == 0, "'%s' decoded wrong", in);
}

static void test_base64url(void)
{
    check_b64("", 0, "");
    check_b64("Zg", 1, "f");
    check_b64("Zm8", 2, "fo");
    check_b64("Zm9v", 3, "foo");
    check_b64("Zm9vYg", 4, "foob");
    check_b64("Zm9vYmE", 5, "fooba");
    check_b64("Zm9vYmFy", 6, "foobar");
    check_b64("-_-_", 3, "\xfb\xff\xbf");
    check_b64("AAEC", 3, "\x00\x01\x02");
    check_b64("eyJhbGciOiJIUzI1NiJ9", 15, "{\"alg\":\"HS256\"}");
    check_b64("Zg==", -1, "");  /* padding is not base64url's */
    check_b64("Z", -1, "");     /* one character cannot make a byte */
    check_b64("Zm9vY", -1, "");
    check_b64("+/+/", -1, "");  /* base64's own 62 and 63 */
    check_b64("Zm 9v", -1, "");
    check_b64("Zm9v\n", -1, "");
}

int main(void)
{
    test_rfc4231();
    test_ct_equal();
    test_base64url();
    return test_done();
}
