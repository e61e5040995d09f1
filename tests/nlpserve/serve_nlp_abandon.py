#!/usr/bin/env python3
"""aiwolf serve --nlp applies the official NLP server's error ratio and NAME
ping (docs/nlp.md "Failing agents"): WebSocket agents (nlpclient.py) that
fail end a game with no winner once int(players x error_ratio) have failed;
below that the game goes on. Every log must pass `aiwolf check` and
`aiwolf replay`; forged copies must not.
  alive      never answers a request, answers every NAME ping with its
             name: not failed, the game ends with a winner
  wrong      answers the NAME ping with another name: failed, abandoned
  late       sends its late TALK answer after the ping, then its name: the
             first message after the ping is not its name: abandoned
  silent     answers nothing after joining (ping_timeout_ms=50): abandoned
  gone       goes at its first TALK: abandoned
  below      nlp13, two WebSocket agents: one goes (1 of the 2 the ratio
             needs), the game goes on to a winner
  both       nlp13: both go: abandoned
  forged     copies of the logs above, changed: check and replay refuse them
Nothing here depends on timing: an agent meets a time limit only by never
answering, so the short limits decide nothing but how long it takes.
    serve_nlp_abandon.py AIWOLF [PART...]"""
import json
import os
import re
import shutil
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nlpclient  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import testtmp  # noqa: E402

AIWOLF = sys.argv[1]
PARTS = sys.argv[2:]
TMP = testtmp.tmpdir("aiwolf_serve_nlp_abandon.")
LIVE = 300
failures = nlpclient.Failures("serve_nlp_abandon")
fail = failures.fail
logs = {}
LUA_AGENTS = ("agents/sample.lua", "agents/random.lua")  # the local seats, in turn


class Scripted(nlpclient.Agent):
    """mode: alive (never answers; its name to every ping), wrong (another
    name to the ping), late (its late answer, then its name), silent
    (nothing), gone (closes at its first TALK), honest."""

    def __init__(self, port, team, mode):
        super().__init__(port, team)
        self.mode = mode
        self.pings = 0
        self.owed = None

    def play(self):
        named = False
        try:
            while True:
                p = json.loads(self.ws.recv())
                r = p["request"]
                if r == "NAME" and named:
                    self.pings += 1
                    if self.mode == "alive":
                        self.ws.send(self.team)
                    elif self.mode == "wrong":
                        self.ws.send(self.team + "x")
                    elif self.mode == "late":
                        self.ws.send(self.owed or "Skip")
                        self.ws.send(self.team)
                    continue
                a = self.handle(p)
                if r == "NAME":
                    named = True
                    self.ws.send(a)
                    continue
                if r == "TALK" and self.mode == "gone":
                    break
                if r in nlpclient.REPLY:
                    if self.mode == "honest":
                        self.ws.send(a)
                    else:
                        self.owed = a
        except (nlpclient.Closed, OSError, ValueError):
            pass
        self.ws.close()


def serve(name, args, modes, games=1):
    d = os.path.join(TMP, name)
    os.makedirs(d)
    errpath = os.path.join(d, "stderr")
    p = subprocess.Popen([AIWOLF, "serve", "--nlp", "-p", "0", "--log-dir", os.path.join(d, "logs"),
                          "--seed", "5", "--time-limit", "50"] + args,
                         stdout=subprocess.PIPE, stderr=open(errpath, "w"), text=True)
    m = re.search(r"listening on port (\d+)", p.stdout.readline())
    if not m:
        raise SystemExit("serve_nlp_abandon: the server did not start: " + open(errpath).read())
    port = int(m.group(1))
    agents = []
    for k, mode in enumerate(modes):
        a = Scripted(port, "%s%d" % (mode, k), mode)
        a.handle(json.loads(a.ws.recv()))  # one at a time: named before the next comes
        a.ws.send(a.team)
        a.requests = []
        agents.append(a)
    ts = [threading.Thread(target=a.play) for a in agents]
    for t in ts:
        t.start()
    for t in ts:
        t.join(LIVE)
    try:
        p.communicate(timeout=LIVE)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        fail("%s: the server did not end" % name)
    err = open(errpath, encoding="utf-8", errors="replace").read()
    if p.returncode != 0 or "%d of %d done" % (games, games) not in err:
        fail("%s: the server exited %s without its games: %s" % (name, p.returncode, err[-1500:]))
    files = sorted(f for f in os.listdir(os.path.join(d, "logs")) if f.endswith(".log"))
    path = os.path.join(d, "logs", files[0]) if files else None
    for cmd, word in (("check", "legal"), ("replay", "reproduced")):
        r = subprocess.run([AIWOLF, cmd, path or "/nonexistent"], capture_output=True, text=True)
        if r.returncode != 0 or word not in r.stdout:
            fail("%s: %s: %s%s" % (name, cmd, r.stdout, r.stderr))
    log = open(path, encoding="utf-8").read() if path else ""
    logs[name] = path
    return agents, log, err


def abandoned(name, log, err, nerrors):
    if not re.search(r"^\d+,result,\d+,\d+,NONE\n\Z", log, re.M):
        fail("%s: the game did not end with no winner: %s" % (name, log[-200:]))
    if len(re.findall(r"^\d+,error,\d+$", log, re.M)) != nerrors:
        fail("%s: not %d error line(s): %r" % (name, nerrors, re.findall(r"^.*,error,.*$", log, re.M)))
    if "abandoned" not in err:
        fail("%s: the server's output does not say the game was abandoned" % name)
    r = subprocess.run([AIWOLF, "check", logs[name]], capture_output=True, text=True)
    if "abandoned, %d agent" % nerrors not in r.stdout:
        fail("%s: check does not say abandoned: %s" % (name, r.stdout))


def won(name, log, nerrors):
    if not re.search(r"^\d+,result,\d+,\d+,(VILLAGER|WEREWOLF)\n\Z", log, re.M):
        fail("%s: the game did not end with a winner: %s" % (name, log[-200:]))
    if len(re.findall(r"^\d+,error,\d+$", log, re.M)) != nerrors:
        fail("%s: not %d error line(s)" % (name, nerrors))


def part_alive():
    agents, log, err = serve("alive", nlpclient.lua(4, 2, LUA_AGENTS), ["alive"])
    won("alive", log, 0)
    a = agents[0]
    if a.pings == 0:
        fail("alive: the silent agent was never pinged")
    if a.requests.count("FINISH") != 1:
        fail("alive: the agent that answered its pings did not get FINISH")


def part_wrong():
    agents, log, err = serve("wrong", nlpclient.lua(4, 2, LUA_AGENTS), ["wrong"])
    abandoned("wrong", log, err, 1)
    if agents[0].pings != 1:
        fail("wrong: pinged %d times, not once" % agents[0].pings)


def part_late():
    agents, log, err = serve("late", nlpclient.lua(4, 2, LUA_AGENTS), ["late"])
    abandoned("late", log, err, 1)


def part_silent():
    agents, log, err = serve("silent", ["--set", "ping_timeout_ms=50"] + nlpclient.lua(4, 2, LUA_AGENTS), ["silent"])
    abandoned("silent", log, err, 1)
    if "no answer to the NAME ping" not in err:
        fail("silent: the server does not say the ping went unanswered")


def part_gone():
    agents, log, err = serve("gone", nlpclient.lua(4, 2, LUA_AGENTS), ["gone"])
    abandoned("gone", log, err, 1)
    # the other agents got FINISH: the game ended as games end
    if "FINISH" in agents[0].requests:
        fail("gone: the agent that went got FINISH")


def part_below():
    agents, log, err = serve("below", ["-n", "13", "--preset", "nlp13"] + nlpclient.lua(11, 3, LUA_AGENTS), ["gone", "honest"])
    won("below", log, 1)
    if agents[1].requests.count("FINISH") != 1 or agents[1].errors:
        fail("below: the honest agent: %r %r" % (agents[1].requests[-3:], agents[1].errors[:3]))


def part_both():
    agents, log, err = serve("both", ["-n", "13", "--preset", "nlp13"] + nlpclient.lua(11, 3, LUA_AGENTS), ["gone", "gone"])
    abandoned("both", log, err, 2)


def verdicts(name, text, rules_from):
    d = os.path.join(TMP, "forged")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name + ".log")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    shutil.copy(os.path.join(os.path.dirname(rules_from), "aiwolf.rules"), path + ".rules")
    c = subprocess.run([AIWOLF, "check", path], capture_output=True, text=True)
    r = subprocess.run([AIWOLF, "replay", path], capture_output=True, text=True)
    return c, r


def refused(name, text, rules_from, replay_too=True):
    c, r = verdicts(name, text, rules_from)
    if c.returncode != 1 or "illegal" not in c.stdout:
        fail("forged %s: check took it: %s%s" % (name, c.stdout, c.stderr))
    if replay_too and (r.returncode != 1 or "reproduced" in r.stdout):
        fail("forged %s: replay took it: %s%s" % (name, r.stdout, r.stderr))


def part_forged():
    gone, below = logs.get("gone"), logs.get("below")
    if not gone or not below:
        fail("forged: needs the parts gone and below")
        return
    g = open(gone, encoding="utf-8").read()
    b = open(below, encoding="utf-8").read()
    lines = g.splitlines(keepends=True)
    err = [i for i, line in enumerate(lines) if ",error," in line]
    # the error line taken out: a result with no winner and nobody failed
    refused("no_error", "".join(l for i, l in enumerate(lines) if i not in err), gone)
    # the agent that failed talks after its error line (it answers nothing more)
    bm = re.search(r"^(\d+),error,(\d+)$", b, re.M)
    after = b[bm.end():]
    t = re.search(r"^(\d+,talk,\d+,\d+,%s,)(Skip|Over)$" % bm.group(2), after, re.M)
    if not t:
        fail("forged: the failed agent of 'below' has no talk after its error line")
    else:
        refused("talks_after", b[:bm.end()] + after[:t.start()] + t.group(1) + "hello" + after[t.end():], below)
    # the game goes on past the error line: the last phase's lines and the
    # end moved after more of the game: cut the end, append the rest of a day
    # (the 'below' game has one error line and goes on; make its count reach
    # the limit by doubling the error line with another agent)
    other = 1 if int(bm.group(2)) != 1 else 2
    two = sorted([int(bm.group(2)), other])
    doubled = b.replace(bm.group(0), "%s,error,%d\n%s,error,%d" % (bm.group(1), two[0], bm.group(1), two[1]))
    refused("goes_on", doubled, below)
    # an error line in a protocol-division log (no error ratio there)
    d = os.path.join(TMP, "forged")
    os.makedirs(d, exist_ok=True)
    plog = os.path.join(d, "proto.log")
    subprocess.run([AIWOLF, "play", "--seed", "3", "--log", plog, "agents/sample.lua", "agents/random.lua"],
                   capture_output=True)
    p = open(plog, encoding="utf-8").read().splitlines(keepends=True)
    p.insert(5, "0,error,2\n")  # after the day-0 status block of five
    with open(plog, "w", encoding="utf-8") as f:
        f.write("".join(p))
    c = subprocess.run([AIWOLF, "check", plog], capture_output=True, text=True)
    if c.returncode != 1 or "error_ratio=0" not in c.stdout:
        fail("forged proto: check took an error line without an error ratio: %s" % c.stdout)
    # an error line where no phase ends: between two talks of day 1
    t2 = list(re.finditer(r"^1,talk,.*\n", b, re.M))
    mid = b[:t2[1].start()] + "1,error,%d\n" % other + b[t2[1].start():]
    c, r = verdicts("mid_talk", mid, below)
    if c.returncode != 1 or "where no phase ends" not in c.stdout:
        fail("forged mid_talk: check: %s" % c.stdout)
    # a winner changed to NONE where nobody failed enough: the 'below' game
    refused("below_none", re.sub(r",(VILLAGER|WEREWOLF)\n\Z", ",NONE\n", b), below)


def main():
    parts = [("alive", part_alive), ("wrong", part_wrong), ("late", part_late), ("silent", part_silent),
             ("gone", part_gone), ("below", part_below), ("both", part_both), ("forged", part_forged)]
    for name, fn in parts:
        if PARTS and name not in PARTS:
            continue
        print("serve_nlp_abandon: %s" % name, flush=True)
        fn()
    if failures.count:
        sys.exit(1)
    print("serve_nlp_abandon: ok")


main()
