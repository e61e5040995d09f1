/* The NLP division's player tokens (nlp_auth.h), as `serve --nlp
 * --jwt-secret` checks them: tokens made by Python's own hmac, base64 and
 * json (tests/nlpserve/jwt_tokens.py prints them), each refused for the
 * reason it was made to be refused, and the good ones taken; a good token
 * with any one byte changed is refused; where the token comes from in the
 * request, and the team a NAME names. */
#include <stdlib.h>
#include <string.h>

#include "nlp_auth.h"
#include "test.h"

static const char *GOOD =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIiLCJleHAiOjQxMDI0NDQ4MDB9.CAQVcL78nWrBGzzqWrATJwu5itWXb2m-wS8YsDuyD2s";
static const char *GOOD_NOEXP =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIifQ.r5A8NcusoONOf_o1aIC_pDl5FMPAUOC2qT7AvhYJd5Y";
static const char *GOOD_NBF_PAST =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIiLCJuYmYiOjEwMDAwMDAwMDAsImV4cCI6NDEwMjQ0NDgwMH0.nl91CmuKd4OZ7AfhvTMoi01WRNRrVU52kevCI1icv2I";
static const char *OTHER_SECRET =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIiLCJleHAiOjQxMDI0NDQ4MDB9.h6AVQ97lD4LP5j7oqwaOP6ScLfUMumy4Ox017P4gDR8";
static const char *EXPIRED =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIiLCJleHAiOjEwMDAwMDAwMDB9.n6zsPFU8xcRG1SF4wPUF2M4uTY0dhRQ71LFCW5rymsw";
static const char *NOT_YET =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIiLCJuYmYiOjQxMDI0NDQ4MDB9.ytJmdYBVx1tN8NlNW5CMdJ2_GA3mInksFpZ2ET3f5Ns";
static const char *EXP_STRING =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIiLCJleHAiOiI0MTAyNDQ0ODAwIn0.2jfEME6oU0bX6ISnS4e4ksjqgH-Q7AtadXGc1Ij9mrE";
static const char *OTHER_TEAM =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoib3RoZXIiLCJyb2xlIjoiUExBWUVSIn0.RDQy5H2gglI3vC6M7aZMzjI8j6cln_NXKw7V4CDqsBI";
static const char *RECEIVER =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJSRUNFSVZFUiJ9.KD52W3vDDBzTzkrtyXXwuPzSw1DauXj-cuNiFX48NAQ";
static const char *NO_ROLE =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiJ9.KvLsMTJbZYtvCuaji56RbAS_9tg5shoIVPrPHYnsnfg";
static const char *HS512 =
    "eyJhbGciOiJIUzUxMiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIifQ.iZTZSzvS847i-2JtXp-DsuOa9aLTECv26V7Lg5m4lVNuHbaoZyXkyNUrd-g9TD48nQLrOd_E9r5YwCT3Lbh4BA";
static const char *LOWER_ALG =
    "eyJhbGciOiJoczI1NiJ9.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIifQ.u8MtGRk5k0mkcB3zsx3Jd_im4e_poue9Zad6HYQBtxk";
static const char *NO_ALG =
    "eyJ0eXAiOiJKV1QifQ.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIifQ.C009TJZVi7zu9FfUVqdLC0x1LqjVjC05HFgWm92b54g";
static const char *NONE =
    "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJ0ZWFtIjogImthbm9sYWIiLCAicm9sZSI6ICJQTEFZRVIifQ.";
static const char *CLAIMS_NOT_JSON =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiIs.PCCgRAn-yeUl4H5MlCasAr1tsz_ZLHLWe0GAniOtKDc";
static const char *CLAIMS_ARRAY =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.WyJQTEFZRVIiXQ.7m3YArmLSKLSF9rLu3IGKphrNZENjjwwbUEFl_1juKo";
static const char *CLAIMS_DUP =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoib3RoZXIiLCJyb2xlIjoiUExBWUVSIiwidGVhbSI6Imthbm9sYWIifQ.Qc4siTrX0gnb2BsmGywjEWtzfdRcmS1RUrEeQa1bJ4M";
static const char *HEADER_NOT_JSON =
    "YWxnPUhTMjU2.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIifQ._4gNmVsTghzd7Rz4f5UsZHak5JpTJevVmxz3i_LIYgQ";

static const unsigned char SECRET[] = "test secret";
#define SLEN (sizeof SECRET - 1)
#define NOW 1800000000.0 /* January 2027: between the tokens' past and future dates */

static aw_nlp_token_status check(const char *token, const char *team)
{
    return aw_nlp_token_check(token, SECRET, SLEN, team, strlen(team), NOW);
}

#define EXPECT(token, team, st)                                                                        \
    do {                                                                                               \
        aw_nlp_token_status got_ = check(token, team);                                                \
        CHECK_MSG(got_ == (st), "%s for %s: %s, want %s", #token, team, aw_nlp_token_status_text(got_), \
                  aw_nlp_token_status_text(st));                                                       \
    } while (0)

static void test_tokens(void)
{
    EXPECT(GOOD, "kanolab", AW_NLP_TOKEN_OK);
    EXPECT(GOOD_NOEXP, "kanolab", AW_NLP_TOKEN_OK);
    EXPECT(GOOD_NBF_PAST, "kanolab", AW_NLP_TOKEN_OK);
    EXPECT(GOOD, "kanolab2", AW_NLP_TOKEN_CLAIMS); /* the caller takes the digits off */
    EXPECT(GOOD, "kanola", AW_NLP_TOKEN_CLAIMS);
    EXPECT(GOOD, "other", AW_NLP_TOKEN_CLAIMS);
    EXPECT(OTHER_TEAM, "other", AW_NLP_TOKEN_OK);
    EXPECT(OTHER_SECRET, "kanolab", AW_NLP_TOKEN_SIGNATURE);
    EXPECT(EXPIRED, "kanolab", AW_NLP_TOKEN_EXPIRED);
    EXPECT(NOT_YET, "kanolab", AW_NLP_TOKEN_NOT_YET);
    EXPECT(EXP_STRING, "kanolab", AW_NLP_TOKEN_CLAIMS);
    EXPECT(OTHER_TEAM, "kanolab", AW_NLP_TOKEN_CLAIMS);
    EXPECT(RECEIVER, "kanolab", AW_NLP_TOKEN_CLAIMS);
    EXPECT(NO_ROLE, "kanolab", AW_NLP_TOKEN_CLAIMS);
    EXPECT(HS512, "kanolab", AW_NLP_TOKEN_ALG);
    EXPECT(LOWER_ALG, "kanolab", AW_NLP_TOKEN_ALG);
    EXPECT(NO_ALG, "kanolab", AW_NLP_TOKEN_ALG);
    EXPECT(NONE, "kanolab", AW_NLP_TOKEN_ALG);
    EXPECT(CLAIMS_NOT_JSON, "kanolab", AW_NLP_TOKEN_MALFORMED);
    EXPECT(CLAIMS_ARRAY, "kanolab", AW_NLP_TOKEN_MALFORMED);
    EXPECT(CLAIMS_DUP, "kanolab", AW_NLP_TOKEN_MALFORMED);
    EXPECT(HEADER_NOT_JSON, "kanolab", AW_NLP_TOKEN_MALFORMED);
    EXPECT("", "kanolab", AW_NLP_TOKEN_ABSENT);
    EXPECT("abc", "kanolab", AW_NLP_TOKEN_MALFORMED);
    EXPECT("a.b", "kanolab", AW_NLP_TOKEN_MALFORMED);
    EXPECT("a.b.c.d", "kanolab", AW_NLP_TOKEN_MALFORMED);
    CHECK(aw_nlp_token_check(NULL, SECRET, SLEN, "kanolab", 7, NOW) == AW_NLP_TOKEN_ABSENT);
    /* the exp second itself is past; the nbf second itself is valid */
    CHECK(aw_nlp_token_check(EXPIRED, SECRET, SLEN, "kanolab", 7, 999999999.5) == AW_NLP_TOKEN_OK);
    CHECK(aw_nlp_token_check(EXPIRED, SECRET, SLEN, "kanolab", 7, 1000000000.0) == AW_NLP_TOKEN_EXPIRED);
    CHECK(aw_nlp_token_check(NOT_YET, SECRET, SLEN, "kanolab", 7, 4102444800.0) == AW_NLP_TOKEN_OK);
    /* the secret is all of its bytes */
    CHECK(aw_nlp_token_check(GOOD, SECRET, SLEN - 1, "kanolab", 7, NOW) == AW_NLP_TOKEN_SIGNATURE);
    CHECK(aw_nlp_token_check(GOOD, (const unsigned char *)"test secreT", SLEN, "kanolab", 7, NOW) ==
          AW_NLP_TOKEN_SIGNATURE);
}

/* Any one character of a good token changed (or cut off the end): refused. */
static void test_every_byte(void)
{
    size_t n = strlen(GOOD);
    char *t = malloc(n + 1);
    int taken = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(t, GOOD, n + 1);
        t[i] = t[i] == 'A' ? 'B' : 'A';
        /* the last character's low bits are padding: 'A' and 'B' there can
         * both decode to the same signature (base64url ignores them) */
        if (check(t, "kanolab") == AW_NLP_TOKEN_OK && i != n - 1) {
            CHECK_MSG(0, "a token with byte %zu changed was taken", i);
            taken++;
        }
    }
    memcpy(t, GOOD, n + 1);
    t[n - 1] = '\0';
    CHECK(check(t, "kanolab") != AW_NLP_TOKEN_OK);
    memcpy(t, GOOD, n + 1);
    t[n - 1] = '=';
    CHECK(check(t, "kanolab") == AW_NLP_TOKEN_MALFORMED);
    free(t);
    CHECK_INT(taken, 0);
}

static void check_of(const char *query, const char *auth, const char *want)
{
    char *t = aw_nlp_token_of(query, auth);
    CHECK_MSG(strcmp(t, want) == 0, "query '%s', header '%s': '%s', want '%s'", query ? query : "(null)",
              auth ? auth : "(null)", t, want);
    free(t);
}

static void test_where(void)
{
    check_of(NULL, NULL, "");
    check_of("", "", "");
    check_of("token=abc", NULL, "abc");
    check_of("a=1&token=abc&b=2", "Bearer xyz", "abc");
    check_of("token=abc&token=def", NULL, "abc");
    check_of("tokens=abc", "Bearer xyz", "xyz");
    check_of("token=", "Bearer xyz", "xyz");
    check_of("token", "Bearer xyz", "xyz");
    check_of("x=token=abc", NULL, "");
    check_of(NULL, "Bearer xyz", "xyz");
    check_of(NULL, "xyz", "xyz");
    check_of(NULL, "bearer xyz", "bearer xyz");
    check_of(NULL, "Bearer Bearer xyz", "xyz");
    size_t n = strlen("kanolab23");
    CHECK_INT((int)aw_nlp_team_len("kanolab23", n), 7);
    CHECK_INT((int)aw_nlp_team_len("kanolab", 7), 7);
    CHECK_INT((int)aw_nlp_team_len("42", 2), 0);
    CHECK_INT((int)aw_nlp_team_len("team1a", 6), 6);
}

int main(void)
{
    test_tokens();
    test_every_byte();
    test_where();
    return test_done();
}
