#!/usr/bin/env python3
"""aiwolf serve --nlp in the group chat of aiwolf-nlp-common 0.7.0
(--set talk_duration=60000): five scripted WebSocket agents that behave as
that version's official agent can (src/starter.py, "freeform mode": it
talks when the phase starts, unasked, as fast as it likes, and never gets a
TALK request). Each sends six talks the moment TALK_PHASE_START comes, two
more than the four a day allows. Checked: no TALK request ever comes, only
TALK_PHASE_START, TALK_BROADCAST (new_talk, with "time") and
TALK_PHASE_END; setting.talk.duration is 60000; the character's profile
comes with INITIALIZE and with nothing else: from --profiles FILE for the
two characters it names (CRLF or LF lines), ours for the others; every agent hears every talk
of the day (the log's) in broadcasts, once each, and DAILY_FINISH's history
holds them again (as the official server sends it); each agent's first
four talks are in the log in order and the two past the count are dropped
with no fault; the game ends, its log checks legal.

usage: serve_nlp_chat.py AIWOLF"""
import json
import os
import re
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nlpclient  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import testtmp  # noqa: E402

AIWOLF = sys.argv[1]
TMP = testtmp.tmpdir("aiwolf_serve_nlp_chat.")
errors = []


class ChatAgent:
    def __init__(self, port, team):
        self.ws = nlpclient.WS(port)
        self.team, self.me, self.status = team, None, {}
        self.errors, self.requests = [], []
        self.heard = {}   # day -> {idx: (agent, text)}
        self.finish_history = {}  # day -> {idx: text} of DAILY_FINISH
        self.profile = None
        self.phase = False
        self.phase_days = set()

    def check(self, cond, what):
        if not cond:
            self.errors.append("%s: %s" % (self.team, what))

    def other(self):
        alive = [n for n, st in self.status.items() if st == "ALIVE" and n != self.me]
        return alive[0] if alive else self.me

    def handle(self, p):
        r = p["request"]
        self.requests.append(r)
        if r == "NAME":
            self.ws.send(self.team)
            return
        info = p.get("info") or {}
        self.me = info.get("agent", self.me)
        self.status = info.get("status_map", self.status)
        self.check(r not in ("TALK", "WHISPER"), "a %s request in a group chat" % r)
        if r == "INITIALIZE":
            self.profile = info.get("profile")
            self.check(isinstance(self.profile, str) and len(self.profile) > 5, "profile %r" % self.profile)
            self.check(p["setting"]["talk"].get("duration") == 60000, "setting.talk %r" % p["setting"]["talk"])
        else:
            self.check("profile" not in info, "profile with %s" % r)
        if r == "TALK_PHASE_START":
            self.check(not self.phase and info.get("remain_count") == 4, "TALK_PHASE_START: %r" % info)
            self.phase = True
            self.phase_days.add(info["day"])
            for k in range(1, 7):
                self.ws.send("talk %d from %s" % (k, self.me))
        elif r == "TALK_BROADCAST":
            t = p["new_talk"]
            self.check(self.phase, "a broadcast outside the phase")
            self.check(set(t) == {"idx", "day", "turn", "agent", "text", "skip", "over", "time"}, "keys %r" % t)
            day = self.heard.setdefault(t["day"], {})
            self.check(t["idx"] not in day, "talk %r twice" % t)
            day[t["idx"]] = (t["agent"], t["text"])
        elif r == "TALK_PHASE_END":
            self.check(self.phase, "TALK_PHASE_END without a start")
            self.phase = False
        elif r == "DAILY_FINISH":
            self.check(not self.phase, "DAILY_FINISH during the phase")
            self.finish_history[info["day"]] = {t["idx"]: t["text"] for t in p.get("talk_history", [])}
        elif r in ("VOTE", "DIVINE", "GUARD", "ATTACK"):
            self.ws.send(self.other())

    def play(self):
        try:
            while True:
                self.handle(json.loads(self.ws.recv()))
        except (nlpclient.Closed, ConnectionError, OSError):
            pass
        except Exception as e:  # a broken packet: reported, not a dead thread
            self.errors.append("%s: %r" % (self.team, e))
        self.ws.close()


logs = os.path.join(TMP, "logs")
PROFILES = {"Minato": "First line of Minato.\nSecond line.", "Takumi": "Takumi's own."}
with open(os.path.join(TMP, "profiles"), "wb") as f:
    f.write(b"\nMinato\nFirst line of Minato.\nSecond line.\n\n\nTakumi\r\nTakumi's own.\r\n")
srv = subprocess.Popen([AIWOLF, "serve", "--nlp", "--preset", "nlp-en", "-p", "0", "--games", "1",
                        "--set", "talk_duration=60000", "--log-dir", logs,
                        "--profiles", os.path.join(TMP, "profiles")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
first = srv.stdout.readline()
m = re.search(rb"listening on port (\d+)", first)
if not m:
    srv.kill()
    print("FAIL: serve did not start: %r" % srv.communicate()[1][-400:])
    sys.exit(1)
port = int(m.group(1))
agents = [ChatAgent(port, "chat%d" % i) for i in range(5)]
threads = [threading.Thread(target=a.play) for a in agents]
for t in threads:
    t.start()
try:
    out, err = srv.communicate(timeout=300)
except subprocess.TimeoutExpired:
    srv.kill()
    out, err = srv.communicate()
    errors.append("serve did not end")
for t in threads:
    t.join(120)
text = (first + out + err).decode(errors="replace")
if srv.returncode != 0 or "agent faults (errors, time-outs, bad replies): 0" not in text:
    errors.append("serve exit %d: %s" % (srv.returncode, text[-600:]))
games = [os.path.join(logs, f) for f in os.listdir(logs) if f.endswith(".log")] if os.path.isdir(logs) else []
if len(games) != 1:
    errors.append("%d logs" % len(games))
for g in games:
    r = subprocess.run([AIWOLF, "check", g], capture_output=True, text=True)
    if r.returncode != 0 or "legal" not in r.stdout:
        errors.append("%s: %s" % (g, r.stdout + r.stderr))
    # the log's talks: day -> {idx: (agent number, text)}
    logged, names = {}, {}
    for line in open(g, encoding="utf-8"):
        f = line.rstrip("\n").split(",", 5)
        if f[1] == "talk":
            logged.setdefault(int(f[0]), {})[int(f[2])] = (int(f[4]), f[5])
    by_agent = {}
    for d, day in logged.items():
        for idx in sorted(day):
            by_agent.setdefault((d, day[idx][0]), []).append(day[idx][1])
    for (d, a), said in by_agent.items():
        mine = [t for t in said if t != "Over"]
        ks = [int(t.split()[1]) for t in mine if t.startswith("talk ")]
        if not ks or ks != list(range(1, len(ks) + 1)) or max(ks) > 4:
            errors.append("day %d: agent %d's talks in the log: %r" % (d, a, said[:8]))
    ours = set()
    for ag in agents:
        if ag.me in PROFILES and ag.profile != PROFILES[ag.me]:
            errors.append("%s: profile %r, --profiles says %r" % (ag.me, ag.profile, PROFILES[ag.me]))
        if ag.me not in PROFILES:
            ours.add(ag.profile)
    if len(ours) != len(agents) - len(PROFILES):
        errors.append("the characters' own profiles are not one each: %r" % ours)
    for ag in agents:
        errors.extend(ag.errors)
        if "FINISH" not in ag.requests:
            errors.append("%s: no FINISH: %s" % (ag.team, " ".join(ag.requests[-12:])))
        for day, talks in logged.items():
            if day not in ag.phase_days:
                continue  # dead by then: not in the phase
            heard = {i: t for i, (a, t) in ag.heard.get(day, {}).items()}
            if heard != {i: t for i, (a, t) in talks.items()}:
                errors.append("%s: day %d: heard %d talks, the log has %d" % (ag.team, day, len(heard), len(talks)))
            if day in ag.finish_history and ag.finish_history[day] != heard:
                errors.append("%s: day %d: DAILY_FINISH's history is not the day's talks" % (ag.team, day))

for e in errors[:20]:
    print("FAIL:", e)
print("%d failures" % len(errors))
sys.exit(1 if errors else 0)
