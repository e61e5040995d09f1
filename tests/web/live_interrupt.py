"""Ctrl-C stops `play --http` as promptly as plain play, even while the
game under way waits for a person (who has an hour to answer here): the
person's seat stops waiting, the game ends on the rules' substitutes, and
the summary of what was played comes (--games), or the one game's record
(no --games), with exit status 0 and no pages left up."""
import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import live_common as C  # noqa: E402
from webclient import WebSocket  # noqa: E402

C.BIN = sys.argv[1]
AGENTS = ["agents/sample.lua", "agents/random.lua"]


def wait_for_question(s):
    """Until the person's seat is asked something that needs an answer."""
    w = WebSocket("127.0.0.1", s.port, f"/ws/human/1?token={s.tokens[1]}", timeout=60)
    while True:
        m = w.recv()
        if m is None:
            return False
        v = json.loads(m)
        if v.get("type") == "view" and v.get("answer") != "none":
            return True


def interrupted(args, what):
    ev = os.path.join(C.tmpdir("aiwolf-int-"), "ev.jsonl")
    s = C.Server(["play", "--human", "1", "--human-timeout", "3600", "--events", ev] + args + AGENTS)
    C.check(wait_for_question(s), f"{what}: the person is asked")
    s.p.send_signal(signal.SIGINT)
    try:
        rc = s.p.wait(timeout=120)  # an hour without the fix
    except subprocess.TimeoutExpired:
        s.p.kill()
        s.p.wait()
        C.check(False, f"{what}: Ctrl-C did not stop it")
        return None, "", ""
    err, out = s.stderr(), open(s.out.name).read()
    C.check(rc == 0, f"{what}: exit status {rc}: {err}")
    C.check("the pages stay up" not in err, f"{what}: the pages stayed up after Ctrl-C: {err}")
    C.check("the games were stopped" in err + out, f"{what}: the seat says why: {err}{out}")
    lines = [json.loads(x) for x in open(ev)]
    C.check(sum(e["event"] == "result" for e in lines) == 1, f"{what}: one whole game in the events")
    return rc, out, err


_, out, err = interrupted(["--games", "3"], "--games 3")
C.check("interrupted after 1 game\n" in err, f"--games: {err}")
C.check("1 game of 5 players" in out and "human " in out, f"--games: the summary of the game played: {out}")
_, out, err = interrupted([], "one game")
C.check("Result:" in out, f"one game: its record: {out}")
C.done()
