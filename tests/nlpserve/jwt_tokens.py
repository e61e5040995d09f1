"""JSON Web Tokens for the tests of `serve --nlp --jwt-secret`, made with
Python's own hmac, hashlib, base64 and json (not with the server's code).
Run it to print the tokens test_nlp_auth.c holds as constants."""
import base64
import hashlib
import hmac
import json


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b'=').decode()


def token(secret, claims, header=None, digest=hashlib.sha256, raw_claims=None, raw_header=None):
    """A signed token: header (default HS256) and claims as compact JSON,
    or raw bytes in their place."""
    h = raw_header if raw_header is not None else json.dumps(
        header or {"alg": "HS256", "typ": "JWT"}, separators=(',', ':')).encode()
    c = raw_claims if raw_claims is not None else json.dumps(claims, separators=(',', ':')).encode()
    signed = b64url(h) + '.' + b64url(c)
    return signed + '.' + b64url(hmac.new(secret, signed.encode(), digest).digest())


def unsigned(claims):
    """A token with "alg": "none" and an empty signature."""
    return b64url(b'{"alg":"none","typ":"JWT"}') + '.' + b64url(json.dumps(claims).encode()) + '.'


if __name__ == '__main__':
    S = b'test secret'
    P = {"team": "kanolab", "role": "PLAYER"}
    cases = [
        ("good", token(S, dict(P, exp=4102444800))),
        ("good_noexp", token(S, P)),
        ("good_nbf_past", token(S, dict(P, nbf=1000000000, exp=4102444800))),
        ("other_secret", token(b'another secret', dict(P, exp=4102444800))),
        ("expired", token(S, dict(P, exp=1000000000))),
        ("not_yet", token(S, dict(P, nbf=4102444800))),
        ("exp_string", token(S, dict(P, exp="4102444800"))),
        ("other_team", token(S, dict(P, team="other"))),
        ("receiver", token(S, dict(P, role="RECEIVER"))),
        ("no_role", token(S, {"team": "kanolab"})),
        ("hs512", token(S, P, header={"alg": "HS512", "typ": "JWT"}, digest=hashlib.sha512)),
        ("lower_alg", token(S, P, header={"alg": "hs256"})),
        ("no_alg", token(S, P, header={"typ": "JWT"})),
        ("none", unsigned(P)),
        ("claims_not_json", token(S, None, raw_claims=b'{"team":"kanolab",')),
        ("claims_array", token(S, None, raw_claims=b'["PLAYER"]')),
        ("claims_dup", token(S, None, raw_claims=b'{"team":"other","role":"PLAYER","team":"kanolab"}')),
        ("header_not_json", token(S, P, raw_header=b'alg=HS256')),
    ]
    for name, t in cases:
        print('static const char *%s =\n    "%s";' % (name.upper(), t))
