/* nlp_auth: JSON Web Tokens as the NLP division's server checks them
 * (nlp_auth.h). */
#include "nlp_auth.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hmac.h"
#include "util.h"

#define MAX_TOKEN 8192 /* longer: malformed (a request's headers are smaller anyway) */

const char *aw_nlp_token_status_text(aw_nlp_token_status st)
{
    switch (st) {
    case AW_NLP_TOKEN_OK:
        return "valid";
    case AW_NLP_TOKEN_ABSENT:
        return "no token";
    case AW_NLP_TOKEN_MALFORMED:
        return "a malformed token";
    case AW_NLP_TOKEN_ALG:
        return "a token not signed HS256";
    case AW_NLP_TOKEN_SIGNATURE:
        return "a token with a wrong signature";
    case AW_NLP_TOKEN_EXPIRED:
        return "an expired token";
    case AW_NLP_TOKEN_NOT_YET:
        return "a token not valid yet (nbf)";
    case AW_NLP_TOKEN_CLAIMS:
        return "a token for another team or role";
    }
    return "?";
}

char *aw_nlp_token_of(const char *query, const char *authorization)
{
    for (const char *p = query ? query : ""; *p;) {
        size_t n = strcspn(p, "&");
        if (n >= 5 && strncmp(p, "token", 5) == 0 && (n == 5 || p[5] == '=')) {
            if (n > 6) {
                char *t = aw_xmalloc(n - 5);
                memcpy(t, p + 6, n - 6);
                t[n - 6] = '\0';
                return t;
            }
            break; /* the first `token` is empty: the header's */
        }
        p += n;
        if (*p == '&')
            p++;
    }
    aw_buf b;
    aw_buf_init(&b);
    for (const char *p = authorization ? authorization : ""; *p;) {
        if (strncmp(p, "Bearer ", 7) == 0) {
            p += 7;
            continue;
        }
        aw_buf_addc(&b, *p++);
    }
    char *t = aw_xstrdup(b.data ? b.data : "");
    aw_buf_free(&b);
    return t;
}

size_t aw_nlp_team_len(const char *name, size_t len)
{
    while (len && name[len - 1] >= '0' && name[len - 1] <= '9')
        len--;
    return len;
}

/* A base64url part that is a JSON object, or NULL. */
static json_t *part_json(const char *s, size_t len)
{
    unsigned char *raw = aw_xmalloc(len * 3 / 4 + 1);
    long n = aw_base64url_decode(s, len, raw);
    json_t *v = n < 0 ? NULL : json_loadb((const char *)raw, (size_t)n, JSON_REJECT_DUPLICATES, NULL);
    free(raw);
    if (v && !json_is_object(v)) {
        json_decref(v);
        v = NULL;
    }
    return v;
}

/* A NumericDate claim: 0 absent, 1 *t set, -1 not a number. */
static int date_claim(json_t *claims, const char *key, double *t)
{
    json_t *v = json_object_get(claims, key);
    if (!v)
        return 0;
    if (!json_is_number(v))
        return -1;
    *t = json_number_value(v);
    return 1;
}

static aw_nlp_token_status check_claims(json_t *claims, const char *team, size_t tlen, double now)
{
    double t;
    int rc = date_claim(claims, "exp", &t);
    if (rc < 0)
        return AW_NLP_TOKEN_CLAIMS;
    if (rc > 0 && !(now < t))
        return AW_NLP_TOKEN_EXPIRED;
    rc = date_claim(claims, "nbf", &t);
    if (rc < 0)
        return AW_NLP_TOKEN_CLAIMS;
    if (rc > 0 && now < t)
        return AW_NLP_TOKEN_NOT_YET;
    json_t *role = json_object_get(claims, "role"), *tm = json_object_get(claims, "team");
    if (!json_is_string(role) || strcmp(json_string_value(role), "PLAYER") != 0 || !json_is_string(tm) ||
        json_string_length(tm) != tlen || memcmp(json_string_value(tm), team, tlen) != 0)
        return AW_NLP_TOKEN_CLAIMS;
    return AW_NLP_TOKEN_OK;
}

aw_nlp_token_status aw_nlp_token_check(const char *token, const unsigned char *secret, size_t slen,
                                       const char *team, size_t tlen, double now)
{
    if (!token || !*token)
        return AW_NLP_TOKEN_ABSENT;
    size_t len = strnlen(token, MAX_TOKEN + 1);
    const char *d1 = strchr(token, '.');
    const char *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
    if (len > MAX_TOKEN || !d2 || strchr(d2 + 1, '.'))
        return AW_NLP_TOKEN_MALFORMED;
    json_t *header = part_json(token, (size_t)(d1 - token));
    if (!header)
        return AW_NLP_TOKEN_MALFORMED;
    json_t *alg = json_object_get(header, "alg");
    bool hs256 = json_is_string(alg) && strcmp(json_string_value(alg), "HS256") == 0;
    json_decref(header);
    if (!hs256)
        return AW_NLP_TOKEN_ALG;
    unsigned char sig[MAX_TOKEN * 3 / 4 + 1], mac[32];
    const char *s = d2 + 1;
    long n = aw_base64url_decode(s, len - (size_t)(s - token), sig);
    if (n < 0)
        return AW_NLP_TOKEN_MALFORMED;
    aw_hmac_sha256(secret, slen, token, (size_t)(d2 - token), mac);
    if (n != (long)sizeof mac || !aw_ct_equal(sig, mac, sizeof mac))
        return AW_NLP_TOKEN_SIGNATURE;
    json_t *claims = part_json(d1 + 1, (size_t)(d2 - d1 - 1));
    if (!claims)
        return AW_NLP_TOKEN_MALFORMED;
    aw_nlp_token_status st = check_claims(claims, team, tlen, now);
    json_decref(claims);
    return st;
}
