#!/usr/bin/env python3
"""aiwolf serve --nlp --jwt-secret: tokens as the official NLP server checks
them (tokens made by jwt_tokens.py with Python's own hmac, not the server's
code). One server, one remote seat and four Lua seats, two games:
  - clients that answer NAME with no token, a token signed with another
    secret, an expired one, one not valid yet, `alg: none`, HS512, a
    malformed one (not base64url, claims not JSON), one for another team or
    for the RECEIVER role, a bad token in the query beside a good header
    (the query's is the one checked, as on the official server), a good
    token sent as "bearer" (not "Bearer "): each is closed after its NAME
    and sent nothing more, and the server says why (a client taken would be seated at
    once, the one remote seat being free: sent INITIALIZE);
  - then two honest agents play a game each: one with its token in the
    query string, one in an Authorization: Bearer header, answering NAME
    kanolab2 (its team is kanolab: the digits are not the team's);
  - our own client, `aiwolf connect --nlp --token`, with a token signed
    with another secret plays no game; with the right one it plays;
  - the secret never reaches the output; --jwt-secret without --nlp, an
    empty or missing secret file are refused with exit status 2.
Nothing here depends on timing: each refused client is read until the
server closes it.
    serve_nlp_auth.py AIWOLF"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jwt_tokens  # noqa: E402
import serve_nlp  # noqa: E402  (its Server, agents and checks; runs nothing on import)
from serve_nlp import AIWOLF, fail, note  # noqa: E402
import nlpclient  # noqa: E402

SECRET = b"the organisers' secret"
FUTURE, PAST = 4102444800, 1000000000


def tok(claims, **kw):
    return jwt_tokens.token(SECRET, claims, **kw)


def player(team="kanolab", **extra):
    return dict({"team": team, "role": "PLAYER", "exp": FUTURE}, **extra)


def refused_clients(port):
    """(what, path, headers) of clients that must be refused."""
    bearer = lambda t: (("Authorization", "Bearer " + t),)
    good = tok(player())
    return [
        ("no token", "/ws", ()),
        ("another secret", "/ws", bearer(jwt_tokens.token(b"a guess", player()))),
        ("expired", "/ws?token=" + tok(player(exp=PAST)), ()),
        ("not valid yet", "/ws", bearer(tok(player(nbf=FUTURE)))),
        ("alg none", "/ws", bearer(jwt_tokens.unsigned(player()))),
        ("HS512", "/ws", bearer(tok(player(), header={"alg": "HS512"}, digest=jwt_tokens.hashlib.sha512))),
        ("not base64url", "/ws", bearer("eyJ!.eyJ.abc")),
        ("claims not JSON", "/ws", bearer(tok(None, raw_claims=b'{"team":'))),
        ("another team", "/ws", bearer(tok(player("other")))),
        ("RECEIVER", "/ws", bearer(tok(player(role="RECEIVER")))),
        ("bad query, good header", "/ws?token=" + tok(player(exp=PAST)), bearer(good)),
        ("lower-case bearer", "/ws", (("Authorization", "bearer " + good),)),
    ]


def part_tokens(secret_path):
    s = serve_nlp.Server("auth", ["--seed", "7", "--games", "2", "--jwt-secret", secret_path] + nlpclient.lua(4, 2))
    for what, path, headers in refused_clients(s.port):
        ws = nlpclient.WS(s.port, path=path, headers=headers, timeout=serve_nlp.LIVE)
        p = json.loads(ws.recv())
        if p != {"request": "NAME"}:
            fail("tokens: %s: the first message is %r" % (what, p))
        ws.send("kanolab")
        got = []
        try:
            got.append(ws.recv())  # a taken client is seated: INITIALIZE
        except nlpclient.Closed:
            pass
        except OSError as e:  # a hung server: fail, not hang
            got.append("neither closed nor seated within %d s: %s" % (serve_nlp.LIVE, e))
        ws.close()
        if got:
            fail("tokens: %s: taken (sent %r)" % (what, got[0][:80]))
        else:
            note("tokens: %s: closed after NAME" % what)
    for path, headers, team in (("/ws?x=1&token=" + tok(player()), (), "kanolab"),
                                ("/ws", (("Authorization", "Bearer " + tok(player())),), "kanolab2")):
        a = nlpclient.Agent(s.port, team, path=path, headers=headers)
        serve_nlp.join(serve_nlp.run_agents([a]))
        serve_nlp.check_agents("tokens", [a], 1)
    s.finish("tokens", 2)
    err = s.err()
    if "refusing an agent without a valid token" not in err or "no token" not in err:
        fail("tokens: the server does not say why it closed the first client: %s" % err[-800:])
    if SECRET.decode() in err or SECRET.decode() in s.out:
        fail("tokens: the secret reached the output")


def part_connect(secret_path):
    s = serve_nlp.Server("connect", ["--seed", "9", "--jwt-secret", secret_path] + nlpclient.lua(4, 2))
    url = "ws://127.0.0.1:%d/ws" % s.port
    for secret, want in ((b"a guess", "0 games played"), (SECRET, "1 game played")):
        t = jwt_tokens.token(secret, player("luawolf"))
        r = subprocess.run([AIWOLF, "connect", "--nlp", url, "--team", "luawolf3", "--token", t, "agents/sample.lua"],
                           capture_output=True, text=True, timeout=serve_nlp.LIVE * 3)
        if want not in r.stderr + r.stdout:
            fail("connect: a token signed with %r: %s%s" % (secret, r.stdout[-300:], r.stderr[-300:]))
    s.finish("connect", 1)
    if "wrong signature" not in s.err():
        fail("connect: the server does not say why it closed the client: %s" % s.err()[-600:])


def part_usage(secret_path, tmp):
    empty = os.path.join(tmp, "empty")
    with open(empty, "w") as f:
        f.write("\n")
    cases = [
        (["serve", "--jwt-secret", secret_path], "--nlp"),
        (["serve", "--nlp", "-p", "0", "--jwt-secret", empty], "empty"),
        (["serve", "--nlp", "-p", "0", "--jwt-secret", os.path.join(tmp, "missing")], "missing"),
    ]
    for args, word in cases:
        r = subprocess.run([AIWOLF] + args, capture_output=True, text=True, timeout=serve_nlp.LIVE)
        if r.returncode != 2 or word not in r.stderr:
            fail("usage: %s: exit %d, %r" % (" ".join(args[1:]), r.returncode, r.stderr))


def main():
    tmp = serve_nlp.TMP
    secret_path = os.path.join(tmp, "secret")
    fd = os.open(secret_path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, SECRET + b"\n")  # the line break is not the secret's
    os.close(fd)
    note("part tokens")
    part_tokens(secret_path)
    note("part connect")
    part_connect(secret_path)
    note("part usage")
    part_usage(secret_path, tmp)
    if serve_nlp.failures.count:  # tmp goes at exit (tests/testtmp.py; AIWOLF_KEEP_TMP keeps it)
        print("serve_nlp_auth: %d failure(s)" % serve_nlp.failures.count)
        sys.exit(1)
    print("serve_nlp_auth: all passed")


main()
