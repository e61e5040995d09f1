/* hmac: HMAC-SHA256 (RFC 2104 on sha256.h), a comparison whose time does
 * not depend on where two byte strings differ, and base64url decoding
 * (RFC 4648 section 5, without padding): what checking a JSON Web Token
 * signed HS256 needs (nlp_auth.h). Uses sha256. */
#ifndef AW_HMAC_H
#define AW_HMAC_H

#include <stdbool.h>
#include <stddef.h>

/* HMAC-SHA256 of msg[0..len) under key[0..klen) (a key longer than 64
 * bytes is hashed first, as RFC 2104 says). */
void aw_hmac_sha256(const void *key, size_t klen, const void *msg, size_t len, unsigned char out[32]);

/* a[0..n) == b[0..n), reading every byte whatever they hold. */
bool aw_ct_equal(const void *a, const void *b, size_t n);

/* Decodes the base64url text in[0..len) (alphabet A-Z a-z 0-9 - _, no '='
 * padding, no other character) into out, which must hold len * 3 / 4
 * bytes. Returns the number of bytes, or -1 when in is not base64url: a
 * character outside the alphabet, or a length that leaves one character
 * over (len % 4 == 1). The bits past the last whole byte are ignored. */
long aw_base64url_decode(const char *in, size_t len, unsigned char *out);

#endif
