/* hmac: HMAC-SHA256, constant-time comparison, base64url (hmac.h). */
#include "hmac.h"

#include <string.h>

#include "sha256.h"

void aw_hmac_sha256(const void *key, size_t klen, const void *msg, size_t len, unsigned char out[32])
{
    unsigned char k[64] = {0}, pad[64], inner[32];
    aw_sha256 s;
    if (klen > sizeof k) {
        aw_sha256_init(&s);
        aw_sha256_update(&s, key, klen);
        aw_sha256_final(&s, k);
    } else if (klen) {
        memcpy(k, key, klen);
    }
    for (size_t i = 0; i < sizeof pad; i++)
        pad[i] = (unsigned char)(k[i] ^ 0x36);
    aw_sha256_init(&s);
    aw_sha256_update(&s, pad, sizeof pad);
    aw_sha256_update(&s, msg, len);
    aw_sha256_final(&s, inner);
    for (size_t i = 0; i < sizeof pad; i++)
        pad[i] = (unsigned char)(k[i] ^ 0x5c);
    aw_sha256_init(&s);
    aw_sha256_update(&s, pad, sizeof pad);
    aw_sha256_update(&s, inner, sizeof inner);
    aw_sha256_final(&s, out);
}

bool aw_ct_equal(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *p = a, *q = b;
    unsigned char diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(p[i] ^ q[i]);
    return diff == 0;
}

/* The value of a base64url character, or -1. */
static int b64url_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '-')
        return 62;
    if (c == '_')
        return 63;
    return -1;
}

long aw_base64url_decode(const char *in, size_t len, unsigned char *out)
{
    if (len % 4 == 1)
        return -1;
    unsigned long acc = 0;
    int bits = 0;
    long n = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64url_value((unsigned char)in[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6 | (unsigned long)v) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(acc >> bits);
        }
    }
    return n;
}
