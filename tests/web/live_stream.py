"""The live spectator stream over the server's WebSocket (docs/viewer.md,
"Watching live"): `aiwolf play --http` with sample agents, spectators
joined before the games, during them and after them. Without --reveal no
line before a game's result holds a role, the seed, a whisper, a night
action, a failed attack or a fault message; after the result comes the
game's full record, which is the --events file line for line; with
--reveal the stream is the --events file from the start."""
import json
import re
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import live_common as C  # noqa: E402
from webclient import WebSocket  # noqa: E402

C.BIN = sys.argv[1]
SECRET_EVENTS = {"whisper", "divine", "guard", "attackVote"}


def watch(port, gid, out, results_at_end, timeout=120):
    """Collects game gid's lines until its full record has ended."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            w = WebSocket("127.0.0.1", port, f"/ws/game/{gid}", timeout=timeout)
            break
        except (ConnectionError, OSError):
            time.sleep(0.05)
    else:
        return
    results = 0
    while True:
        m = w.recv()
        if m is None:
            break
        out.append(m)
        e = json.loads(m)
        if e.get("event") == "result":
            results += 1
        # the full record ends with its result line, then the FINISH calls
        if results == results_at_end and e.get("event") == "call" and e.get("call") == "FINISH":
            if sum(1 for x in out if '"call":"FINISH"' in x) >= len(json.loads(out[0])["agents"]):
                break
    w.close()


def secret(e):
    if e.get("event") in SECRET_EVENTS:
        return "a " + e["event"]
    if "role" in e or "seed" in e or "message" in e:
        return "a role, the seed or a message"
    if any("role" in a for a in e.get("agents", [])):
        return "roles in begin"
    if e.get("event") == "attack" and not e.get("success"):
        return "a failed attack"
    if e.get("event") == "call" and e.get("call") in ("WHISPER", "DIVINE", "GUARD", "ATTACK"):
        return "a secret request"
    if e.get("event") == "substitute" and e.get("call") != "VOTE":
        return "a substitute for a secret request"
    if e.get("event") == "talkReplaced" and e.get("call") != "TALK":
        return "a replaced whisper"
    return None


SAID = re.compile(r',"en":"(?:[^"\\]|\\.)*","ja":"(?:[^"\\]|\\.)*"}$')


def unsaid(lines):
    """The lines without the sentences (en, ja) the stream adds to talks and
    whispers (the viewer's), and how many had them."""
    out = [SAID.sub("}", x) for x in lines]
    return out, sum(1 for a, b in zip(lines, out) if a != b)


def run(reveal, games):
    events = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"live_stream_{os.getpid()}_{reveal}.jsonl")
    args = ["play", "--players", "15", "--games", str(games), "--seed", "77", "--quiet", "--events", events,
            "agents/sample.lua", "agents/random.lua"] + (["--reveal"] if reveal else [])
    s = C.Server(args)
    # one spectator from the start of game 1, others join late
    early = []
    t = threading.Thread(target=watch, args=(s.port, 1, early, 1 if reveal else 2))
    t.start()
    C.check(s.wait_lingering(), "the games end")
    late = {}
    for gid in range(1, games + 1):
        late[gid] = []
        watch(s.port, gid, late[gid], 1 if reveal else 2, timeout=20)
    t.join(60)
    st, body = s.get("/api/games")
    C.check(st == 200 and len(json.loads(body)["games"]) == games, f"/api/games lists {games} games: {body[:200]}")
    C.check(s.stop() == 0, "the server exits 0")
    lines = open(events).read().splitlines()
    os.unlink(events)
    C.check(early == late[1], "a spectator from the start and a late one get the same lines")
    for gid in range(1, games + 1):
        record = [x for x in lines if json.loads(x)["game"] == gid - 1]
        got, said = unsaid(late[gid])
        talks = sum(1 for x in got if json.loads(x).get("event") == "talk" and json.loads(x)["text"] not in ("Over", "Skip"))
        C.check(said >= talks > 0, f"game {gid}: the talks carry their sentences ({said} of {talks})")
        C.check(len(got) > 50, f"game {gid}: {len(got)} lines")
        if reveal:
            C.check(got == record, f"game {gid}: with --reveal the stream is --events")
            C.check(any('"event":"whisper"' in x for x in got[:len(got) // 2]), "whispers during the game")
            continue
        first = next(i for i, x in enumerate(got) if json.loads(x).get("event") == "result")
        live, after = got[:first + 1], got[first + 1:]
        bad = [(x, secret(json.loads(x))) for x in live if secret(json.loads(x))]
        C.check(not bad, f"game {gid}: secrets before the result: {bad[:3]}")
        C.check(after == record, f"game {gid}: after the result, the full record ({len(after)} vs {len(record)} lines)")
        pub = [x for x in record if json.loads(x).get("event") in ("talk", "vote")]
        C.check(pub == [x for x in live if json.loads(x).get("event") in ("talk", "vote")],
                f"game {gid}: every talk and vote passes live")
        C.check(any(json.loads(x).get("event") == "whisper" for x in record), f"game {gid}: the record has whispers")


run(False, 3)
run(True, 2)
C.done()
