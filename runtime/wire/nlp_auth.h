/* nlp_auth: the NLP division's player tokens, as aiwolfdial's
 * aiwolf-nlp-server checks them when its `server.authentication.enable` is
 * on (its util/auth_util.go and core/server.go): a JSON Web Token (RFC
 * 7519) in the WebSocket request's `token` query parameter or, when that
 * is absent or empty, in its `Authorization` header (every "Bearer " taken
 * out), signed with HMAC-SHA256 under a secret the organisers share with
 * each team, whose claims say `"role": "PLAYER"` and `"team"`: the name
 * the agent answers NAME with, trailing digits taken off (kanolab2 is team
 * kanolab). A token with `exp` is refused from that second on, one with
 * `nbf` before it. Only HS256 is taken (never `none`; the official server
 * takes HS384 and HS512 too). Uses hmac (core) and jansson, no I/O. */
#ifndef AW_NLP_AUTH_H
#define AW_NLP_AUTH_H

#include <stddef.h>

typedef enum aw_nlp_token_status {
    AW_NLP_TOKEN_OK,
    AW_NLP_TOKEN_ABSENT,    /* no token at all */
    AW_NLP_TOKEN_MALFORMED, /* not three base64url parts of JSON objects */
    AW_NLP_TOKEN_ALG,       /* signed with something other than HS256 (or `none`) */
    AW_NLP_TOKEN_SIGNATURE, /* the signature is not the secret's */
    AW_NLP_TOKEN_EXPIRED,   /* now >= exp */
    AW_NLP_TOKEN_NOT_YET,   /* now < nbf */
    AW_NLP_TOKEN_CLAIMS,    /* exp or nbf not a number, role not PLAYER, team not the agent's */
} aw_nlp_token_status;

/* What a status means, for the server's log (a static string). */
const char *aw_nlp_token_status_text(aw_nlp_token_status st);

/* The token a WebSocket request carries: the first `token` parameter of
 * its decoded query string (NULL or "" when none) if not empty, else its
 * Authorization header (NULL when none) with every "Bearer " removed.
 * Returns a new string (free it), "" when there is none. */
char *aw_nlp_token_of(const char *query, const char *authorization);

/* The team a NAME answer names: name[0..len) less its trailing digits. */
size_t aw_nlp_team_len(const char *name, size_t len);

/* Checks token (NUL-terminated) under secret[0..slen) for team[0..tlen)
 * at `now` (seconds since the epoch). The signature is checked before the
 * claims are read; it is compared in constant time. */
aw_nlp_token_status aw_nlp_token_check(const char *token, const unsigned char *secret, size_t slen,
                                       const char *team, size_t tlen, double now);

#endif
