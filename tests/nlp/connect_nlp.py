#!/usr/bin/env python3
"""aiwolf connect --nlp against the fake NLP server (fake_server.py):
every fixture game (tests/fixtures/nlp: games the official server sent, recorded,
and games written from its sources) played by agents/sample.lua,
agents/random.lua, tests/nlp/freetext.lua and the agent `aiwolf new --nlp`
makes, every answer in the form the
official server accepts; the token; a server that is not up; hostile
servers (garbage, binary, huge, invalid UTF-8, terminal escapes, unknown
names, an early close, a refused handshake): a clean exit, never a crash,
nothing raw on the terminal.

usage: connect_nlp.py AIWOLF"""
import glob
import gzip
import json
import os
import signal
import socket
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import testtmp  # noqa: E402

AIWOLF = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_server.py")
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def finish(srv, cli):
    """The client's output once it ends (killed, with the server, past 120 s
    of a broken stop: no process is left behind)."""
    try:
        out, err = cli.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        cli.kill()
        out, err = cli.communicate()
        err += b" [killed: the client did not stop]"
    try:
        srv.wait(timeout=120)
    except subprocess.TimeoutExpired:
        srv.kill()
        srv.wait()
    return out, err


def start(fixture, mode, connections, args, agent="agents/sample.lua", tls=None):
    """The fake server and a client on it, both running."""
    tmp = testtmp.tmpdir("aiwolf_connect_nlp.")
    port_file, verdict = os.path.join(tmp, "port"), os.path.join(tmp, "v.json")
    cmd = [sys.executable, FAKE, "--port-file", port_file, "--verdict", verdict, "--mode", mode,
           "--connections", str(connections)]
    if fixture:
        cmd += ["--fixture", fixture]
    if tls:
        cmd += ["--tls"] + list(tls)
    srv = subprocess.Popen(cmd)
    # the server writes its port file once it listens (renamed into place)
    while not os.path.exists(port_file):
        if srv.poll() is not None:
            raise SystemExit("the fake server died")
        os.sched_yield()
    url = "%s://127.0.0.1:%s/ws" % ("wss" if tls else "ws", open(port_file).read())
    cli = subprocess.Popen([AIWOLF, "connect", "--nlp", url] + list(args) + [agent],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return srv, cli, verdict


class Done:
    def __init__(self, code, out, err):
        self.returncode, self.stdout, self.stderr = code, out, err


def run(fixture, agent, mode="play", args=(), tls=None):
    """One client on one fake server, to the end: (the client, the verdict)."""
    srv, cli, verdict = start(fixture, mode, 1, args, agent, tls)
    out, err = finish(srv, cli)
    v = json.load(open(verdict, encoding="utf-8")) if os.path.exists(verdict) else {"bad": ["no verdict"]}
    return Done(cli.returncode, out, err), v


def wants(fixture):
    n = 0
    opener = gzip.open if fixture.endswith(".gz") else open
    with opener(fixture, "rt", encoding="utf-8") as f:
        for line in f:
            if json.loads(line)["request"] in ("NAME", "TALK", "WHISPER", "VOTE", "DIVINE", "GUARD", "ATTACK"):
                n += 1
    return n


def raw_escape(b):
    return b"\x1b" in b or b"\x07" in b or "\u202e".encode() in b


fixtures = sorted(glob.glob("tests/fixtures/nlp/recorded/*.jsonl.gz")) + \
    sorted(glob.glob("tests/fixtures/nlp/games/*.jsonl"))
if not fixtures:
    raise SystemExit("no fixtures")
# the agent `aiwolf new --nlp` scaffolds plays too
scaffold = testtmp.tmpdir("aiwolf_connect_nlp.")
subprocess.run([AIWOLF, "new", "--nlp", "--dir", scaffold, "nlpagent"], check=True, capture_output=True)
games = 0
for fx in fixtures:
    for agent in ["agents/sample.lua", "agents/random.lua", os.path.join(HERE, "freetext.lua"),
                  os.path.join(scaffold, "nlpagent", "main.lua")] + \
            ([os.path.join(HERE, "listener.lua")] if "-chat" in fx else []):
        cli, v = run(fx, agent)
        name = "%s with %s" % (os.path.basename(fx), os.path.basename(agent))
        if cli.returncode != 0:
            fail("%s: exit %d: %s" % (name, cli.returncode, cli.stderr.decode(errors="replace")[-500:]))
        if v["bad"]:
            fail("%s: answers refused: %s" % (name, v["bad"][:5]))
        if v["answers"] != wants(fx) + v["chat_answers"]:
            fail("%s: %d answers for %d requests that want one" % (name, v["answers"], wants(fx)))
        if ("-chat" in fx) != (v["chat_answers"] > 0):
            fail("%s: %d talks in the group chat" % (name, v["chat_answers"]))
        if b"game 1 over" not in cli.stderr:
            fail("%s: no 'game 1 over' line" % name)
        if b"the agent's" in cli.stderr:
            fail("%s: the agent had a fault: %s" % (name, cli.stderr.decode(errors="replace")[-500:]))
        if "freetext" in agent:
            # free text was cut, with the mention kept, and every target a name
            talks = v["by_request"].get("TALK", []) + v["by_request"].get("WHISPER", [])
            if not talks or not all("@" in t for t in talks):
                fail("%s: the mention was lost in %s" % (name, talks[:2]))
        games += 1

# the token goes in the Authorization header; without it the server refuses
fx = fixtures[0]
cli, v = run(fx, "agents/sample.lua", mode="token", args=["--token", "secret"])
if cli.returncode != 0 or v["bad"] or v["headers"] != ["Bearer secret"]:
    fail("token: exit %d, headers %s, bad %s" % (cli.returncode, v["headers"], v["bad"][:3]))
cli, v = run(fx, "agents/sample.lua", mode="token")
if cli.returncode != 1 or not v.get("refused") or b"cannot connect" not in cli.stderr:
    fail("no token: exit %d, %s" % (cli.returncode, cli.stderr[-300:]))

# hostile servers: exit 1 with a message (0 for a plain close), no raw bytes
for mode, code, words in [("garbage", 1, b"not JSON"), ("binary", 1, b"binary"), ("huge", 1, b"longer than"),
                          ("badutf8", 1, b"not JSON"), ("refuse", 1, b"cannot connect"), ("close", 0, b"0 games"),
                          ("escape", 0, b""), ("unknown-agent", 0, b"not in the game")]:
    cli, v = run(fx, "agents/sample.lua", mode=mode)
    out = cli.stderr + cli.stdout
    if cli.returncode != code:
        fail("%s: exit %d (expected %d): %s" % (mode, cli.returncode, code, out[-400:]))
    if words not in out:
        fail("%s: %r not in %s" % (mode, words, out[-400:]))
    if raw_escape(out):
        fail("%s: a raw control byte reached the terminal: %r" % (mode, out[-400:]))
    if mode in ("escape", "unknown-agent"):
        ans = v.get("hostile_answer")
        if ans is None or any(ord(c) < 0x20 for c in ans):
            fail("%s: the talk answer %r" % (mode, ans))

# Ctrl-C while connected to a server that says nothing: a clean stop, exit 0
srv, cli, verdict = start(None, "silent", 1, [])
while not os.path.exists(verdict + ".connected"):
    if cli.poll() is not None:
        break
    os.sched_yield()
cli.send_signal(signal.SIGINT)
out, err = finish(srv, cli)
if cli.returncode != 0 or b"0 games played over 1 connection" not in err:
    fail("Ctrl-C: exit %d: %s" % (cli.returncode, err[-300:]))

# --reconnect: game after game, one connection each, until Ctrl-C
srv, cli, verdict = start(fixtures[0], "play", 2, ["--reconnect"])
try:
    srv.wait(timeout=300)  # the server ends after its second connection
except subprocess.TimeoutExpired:
    pass
cli.send_signal(signal.SIGINT)
out, err = finish(srv, cli)
v = json.load(open(verdict, encoding="utf-8")) if os.path.exists(verdict) else {"connections": 0, "bad": ["no verdict"]}
if v["connections"] != 2 or v["bad"] or cli.returncode != 0 or b"2 games played over 2 connections" not in err:
    fail("--reconnect: %d connections, bad %s, exit %d: %s" % (v["connections"], v["bad"][:3], cli.returncode,
                                                              err[-300:]))

# wss:// with a certificate nobody vouches for: refused (certificates are
# checked), exit 1 with a message
tmp = testtmp.tmpdir("aiwolf_connect_nlp.")
cert, key = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
gen = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                      "-days", "2", "-subj", "/CN=127.0.0.1"], capture_output=True)
if gen.returncode == 0:
    cli, v = run(fixtures[0], "agents/sample.lua", tls=(cert, key))
    err = cli.stderr
    if cli.returncode != 1 or b"cannot connect" not in err or raw_escape(err):
        fail("wss, untrusted certificate: exit %d: %s" % (cli.returncode, err[-300:]))
else:
    print("no openssl: the wss test is skipped")

# a server that is not up: exit 1 at once (without --reconnect)
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
s.close()
cli = subprocess.run([AIWOLF, "connect", "--nlp", "ws://127.0.0.1:%d/ws" % port, "agents/sample.lua"],
                     capture_output=True, timeout=120)
if cli.returncode != 1 or b"cannot connect" not in cli.stderr:
    fail("not up: exit %d: %s" % (cli.returncode, cli.stderr[-300:]))

# bad usage: exit 2 with a message
for args in (["--nlp", "http://x/ws", "agents/sample.lua"], ["--nlp", "ws://x:99999/ws", "agents/sample.lua"],
             ["--nlp", "ws://127.0.0.1:1/ws"], ["--nlp", "ws://h/ws", "--lang", "fr", "agents/sample.lua"],
             ["--nlp", "ws://h/ws", "--token", "a b", "agents/sample.lua"], ["--nlp"]):
    cli = subprocess.run([AIWOLF, "connect"] + args, capture_output=True, timeout=60)
    if cli.returncode != 2 or not cli.stderr:
        fail("usage %s: exit %d" % (args, cli.returncode))
cli = subprocess.run([AIWOLF, "connect", "--nlp", "ws://h/ws", "--help"], capture_output=True, timeout=60)
if cli.returncode != 0 or b"--team" not in cli.stdout:
    fail("--help")

print("%d games played, %d failures" % (games, len(failures)))
sys.exit(1 if failures else 0)
