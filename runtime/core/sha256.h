/* sha256: SHA-256 (FIPS 180-4), for what people check outside this program:
 * a contest's entries in its provenance (the same digest `sha256sum`
 * prints), and under HMAC (hmac.h). Uses nothing. */
#ifndef AW_SHA256_H
#define AW_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct aw_sha256 {
    uint32_t h[8];
    uint64_t bytes;       /* hashed so far */
    unsigned char block[64];
    size_t used;          /* bytes waiting in block */
} aw_sha256;

void aw_sha256_init(aw_sha256 *s);
void aw_sha256_update(aw_sha256 *s, const void *data, size_t len);
/* The digest as 32 bytes; s is spent. */
void aw_sha256_final(aw_sha256 *s, unsigned char out[32]);
/* The digest as 64 lower-case hex digits and a NUL; s is spent. */
void aw_sha256_hex(aw_sha256 *s, char hex[65]);
/* The digest of data[0..len) as hex. */
void aw_sha256_of(const void *data, size_t len, char hex[65]);

#endif
