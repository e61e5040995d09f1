"""A human seat over the server's WebSocket (docs/viewer.md, "Playing as a
human"), for `aiwolf play --http --human 1` and `aiwolf serve --http
--human 1`: the seat's page and channel refuse a missing or wrong token;
with the token a scripted person plays a whole game — a bad protocol text
and an impossible target are refused with their reasons, then valid
answers are taken, some requests are let run out — while hostile clients
send garbage, oversized and binary messages, stale answers, and idle
spectators never read; the game still ends with a legal log (aiwolf check)
that holds the person's own words, and each view shows no role the seat
may not know."""
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import live_common as C  # noqa: E402
from webclient import WebSocket  # noqa: E402

C.BIN = sys.argv[1]


def refused(port, path):
    try:
        WebSocket("127.0.0.1", port, path, timeout=5)
        return False
    except (ConnectionError, OSError):
        return True


def hostile(port, token, stop):
    """Garbage on the seat's channel and on the game's, until stop."""
    n = 0
    while not stop.is_set():
        try:
            w = WebSocket("127.0.0.1", port, f"/ws/human/1?token={token}", timeout=5)
            for m in ["", "answer", "answer x text Over", "answer 999999 text Over", "answer 1 target -5",
                      "answer 18446744073709551615 target 1", "check ", "check \x01\x02", "\xff\xfe garbage",
                      "answer 1 text " + "A" * 3000]:
                w.send(m)
            w.frame(2, b"\x00\x01binary")  # a binary message closes this client
            w.close()
            w = WebSocket("127.0.0.1", port, f"/ws/human/1?token={token}", timeout=5)
            w.send("x" * 70000)  # larger than a message may be: closed
            w.close()
            # a spectator that never reads
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"GET /ws/game/1 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            time.sleep(0.05)
            s.close()
            n += 1
        except (ConnectionError, OSError):
            time.sleep(0.05)
    return n


def person(port, token, stats):
    w = WebSocket("127.0.0.1", port, f"/ws/human/1?token={token}", timeout=60)
    later = []  # messages that came while waiting for a reply

    def reply(types):
        """The next message of one of types; the others wait in `later`
        (the next view may come before the reply to an answer)."""
        while True:
            m = w.recv()
            if m is None:
                return {}
            r = json.loads(m)
            if r.get("type") in types:
                return r
            later.append(m)

    while True:
        m = later.pop(0) if later else w.recv()
        if m is None:
            return
        v = json.loads(m)
        if v.get("type") != "view":
            continue
        stats["views"] += 1
        roles = v["roles"]
        if v["request"] != "FINISH":
            wolves = v["myRole"] == "WEREWOLF"
            ok = set(roles) <= {str(v["agent"])} or (wolves and all(r == "WEREWOLF" for r in roles.values()))
            C.check(ok and roles.get(str(v["agent"])) == v["myRole"], f"view shows only what the seat knows: {roles}")
            C.check(("whispers" in v) == wolves, "whispers only for a werewolf")
            C.check("divineResult" not in v or v["myRole"] == "SEER", "divinations only for the seer")
        else:
            stats["finish"] = True
            C.check(len(roles) == v["players"], "FINISH shows every role")
        if v["answer"] == "none":
            continue
        seq = v["seq"]
        if seq % 6 == 4:
            stats["let_go"] += 1
            continue
        me = v["agent"]
        others = [a for a in v["alive"] if a != me]
        if v["answer"] == "text":
            w.send(f"answer {seq} text VOTE Agent[")
            r = reply(("refused", "taken"))
            C.check(r.get("type") == "refused" and "at byte" in r["error"], f"a bad text is refused: {r}")
            w.send("check VOTE Agent[0")
            r = reply(("check",))
            C.check(r.get("type") == "check" and not r["ok"], f"check says why: {r}")
            text = f"VOTE Agent[{others[0]:02d}]" if seq % 2 else "Over"
            w.send(f"answer {seq} text {text}")
            r = reply(("refused", "taken"))
            C.check(r.get("type") == "taken", f"a valid text is taken: {r}")
            if r.get("type") == "taken" and text != "Over":
                stats["said"].append((me, text))
        elif v["answer"] == "confirm":
            # the night step of a seat the night asks nothing: a confirmation only
            C.check(v["request"] == "NIGHT", f"a confirmation is the night step: {v['request']}")
            w.send(f"answer {seq} target {others[-1]}")
            r = reply(("refused", "taken"))
            C.check(r.get("type") == "refused" and "confirmation" in r.get("error", ""), f"no agent at night: {r}")
            w.send(f"answer {seq} confirm")
            r = reply(("refused", "taken"))
            C.check(r.get("type") == "taken", f"the confirmation is taken: {r}")
            stats["nights"] = stats.get("nights", 0) + 1
        else:
            w.send(f"answer {seq} target 0")
            r = reply(("refused", "taken"))
            C.check(r.get("type") == "refused", f"target 0 is refused: {r}")
            w.send(f"answer {seq} target {others[-1]}")
            r = reply(("refused", "taken"))
            C.check(r.get("type") == "taken", f"a target is taken: {r}")
        stats["answered"] += 1


def game(cmd, logdir):
    if cmd == "play":
        log = os.path.join(logdir, "play.log")
        args = ["play", "--human", "1", "--human-timeout", "1", "--players", "15", "--seed", "31", "--quiet",
                "--log", log, "agents/sample.lua"]
    else:
        args = ["serve", "--human", "1", "--human-timeout", "1", "-n", "15", "--seed", "31", "--quiet", "-p", "0",
                "--log-dir", logdir]
        for a in range(2, 16):
            args += ["--agent", f"{a}=agents/sample.lua"]
    s = C.Server(args)
    tok = s.tokens.get(1)
    C.check(tok and len(tok) == 32, f"{cmd}: the seat's address has its token")
    C.check(s.get("/human/1")[0] == 403, f"{cmd}: the page without the token is refused")
    C.check(s.get("/human/1?token=" + "0" * 32)[0] == 403, f"{cmd}: a wrong token is refused")
    C.check(s.get(f"/human/1?token={tok}")[0] == 200, f"{cmd}: the page with the token")
    C.check(refused(s.port, "/ws/human/1"), f"{cmd}: the channel without the token is refused")
    C.check(refused(s.port, "/ws/human/1?token=" + "f" * 32), f"{cmd}: the channel with a wrong token is refused")
    C.check(refused(s.port, f"/ws/human/1?token={tok}x"), f"{cmd}: the channel with a longer token is refused")
    C.check(tok not in s.get("/api/games")[1], f"{cmd}: the token is not listed")
    stats = {"views": 0, "answered": 0, "let_go": 0, "said": [], "finish": False}
    stop = threading.Event()
    h = threading.Thread(target=hostile, args=(s.port, tok, stop))
    h.start()
    p = threading.Thread(target=person, args=(s.port, tok, stats))
    p.start()
    C.check(s.wait_lingering(300), f"{cmd}: the game ends")
    stop.set()
    h.join(30)
    C.check(s.stop() == 0, f"{cmd}: the server exits 0")
    p.join(30)
    print(cmd, {k: v for k, v in stats.items() if k != "said"}, len(stats["said"]), "said")
    C.check(stats["finish"] and stats["answered"] > 3 and stats["let_go"] > 0, f"{cmd}: the person played: {stats}")
    logs = [os.path.join(logdir, f) for f in os.listdir(logdir) if f.endswith(".log")]
    C.check(len(logs) == 1, f"{cmd}: one log")
    for lg in logs:
        ok, out = C.aiwolf_check(lg)
        C.check(ok, f"{cmd}: the log is legal: {out}")
        text = open(lg).read()
        for me, said in stats["said"]:  # serve draws the seat's number
            C.check(f",{me},{said}" in text, f"{cmd}: the person's '{said}' (agent {me}) is in the log")
        os.unlink(lg)


for cmd in ("play", "serve"):
    game(cmd, C.tmpdir(f"human_play_{cmd}."))  # the folder goes when the test ends
C.done()
