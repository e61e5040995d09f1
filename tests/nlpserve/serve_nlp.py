#!/usr/bin/env python3
"""aiwolf serve --nlp with scripted WebSocket agents (nlpclient.py, python3
standard library only), honest and hostile. Every part runs its own server;
each checks that the server exits 0 having played its games, that every log
is legal (`aiwolf check`) and replays byte for byte (`aiwolf replay`), and
what the agents saw or got:
  five       five WebSocket agents, two of them with the same team name
             (the second becomes kanolab2); every packet checked (names,
             not numbers; histories without repeats; setting at
             INITIALIZE/DAILY_INITIALIZE only; every role at FINISH)
  mixed      one WebSocket agent and four local Lua seats, two games (the
             agent is closed after each, as by the official server, and
             connects again); a free-text talk past the length rule is cut in the
             log and in what the agents are sent; the Lua seats' protocol
             sentences stay in the log, the agent hears them rendered
  thirteen   nlp13: three WebSocket agents and ten Lua seats
  frames     before its NAME: a binary frame, a message past --max-message,
             two answers to one NAME; each such client is closed, then an
             honest one plays (libwebsockets 4.1 takes a frame the client did
             not mask as any other: not tested)
  silence    a client that never answers NAME is closed (--name-timeout); one
             that stops answering in its game is put out of it
             (--max-timeouts) and the game goes on; one that goes at its
             first TALK too
  odd        bytes that are not UTF-8 in a text frame close that agent; a
             target that is nobody's name is that agent's fault and nothing
             more; a name with a terminal escape reaches the output escaped;
             a name past 64 bytes is cut on a character boundary
  interrupt  Ctrl-C while a game waits for an agent: the agent is closed, the
             server exits 0 and keeps the game's log as SEED.log.unfinished
Nothing here depends on timing: time-outs are set small and the outcome
(closed, games finished) is asserted, not how long it took.
    serve_nlp.py AIWOLF [PART...]"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nlpclient  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import testtmp  # noqa: E402

AIWOLF = sys.argv[1]
PARTS = sys.argv[2:]
TMP = testtmp.tmpdir("aiwolf_serve_nlp.")
LIVE = 120  # seconds within which what must happen has happened (a hung server fails, not hangs)
failures = nlpclient.Failures("serve_nlp")
fail = failures.fail


def note(what):
    print("serve_nlp: " + what, flush=True)


SERVERS = []  # every server started: join notices one that ended before finish


class Server:
    def __init__(self, name, args):
        self.finished = self.reported = False
        SERVERS.append(self)
        self.dir = os.path.join(TMP, name)
        os.makedirs(self.dir)
        self.errpath = os.path.join(self.dir, "stderr")
        self.p = subprocess.Popen([AIWOLF, "serve", "--nlp", "-p", "0", "--log-dir", os.path.join(self.dir, "logs"),
                                   "--events", os.path.join(self.dir, "events.jsonl")] + args,
                                  stdout=subprocess.PIPE, stderr=open(self.errpath, "w"), text=True)
        line = self.p.stdout.readline()
        m = re.search(r"listening on port (\d+)", line)
        if not m:
            raise SystemExit("serve_nlp: the server did not start: %r %s" % (line, open(self.errpath).read()))
        self.port = int(m.group(1))

    def err(self):
        with open(self.errpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def finish(self, part, games):
        self.finished = True
        try:
            out, _ = self.p.communicate(timeout=LIVE * 3)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.communicate()
            fail("%s: the server did not end" % part)
            return
        if self.p.returncode != 0:
            fail("%s: the server exited %d: %s" % (part, self.p.returncode, self.err()[-1500:]))
        if "%d of %d done" % (games, games) not in self.err():
            fail("%s: not every game was played: %s" % (part, self.err()[-1500:]))
        logs = sorted(f for f in os.listdir(os.path.join(self.dir, "logs")) if f.endswith(".log"))
        if len(logs) != games:
            fail("%s: %d logs for %d games" % (part, len(logs), games))
        for f in logs:
            path = os.path.join(self.dir, "logs", f)
            for cmd, word in (("check", "legal"), ("replay", "reproduced")):
                r = subprocess.run([AIWOLF, cmd, path], capture_output=True, text=True)
                if r.returncode != 0 or word not in r.stdout:
                    fail("%s: %s %s: %s%s" % (part, cmd, f, r.stdout, r.stderr))
        if "\x1b" in self.err():
            fail("%s: a raw escape reached the server's output" % part)
        self.out = out

    def log_text(self):
        d = os.path.join(self.dir, "logs")
        return "".join(open(os.path.join(d, f), encoding="utf-8", errors="replace").read()
                       for f in sorted(os.listdir(d)) if f.endswith(".log"))


def run_agents(agents):
    """Each agent plays in a thread of its own. An agent whose client dies
    (an exception here, not a close by the server) closes its connection at
    once, so that the server sees it gone rather than waiting for its
    answers' time-outs, and keeps the traceback for join."""
    def play(a):
        try:
            a.play()
        except Exception:
            a.died = traceback.format_exc()
            a.ws.close()

    ts = []
    for a in agents:
        a.died = None
        t = threading.Thread(target=play, args=(a,))
        t.agent = a
        t.start()
        ts.append(t)
    return ts


def dead_server():
    """A server that ended before its part finished it: failed, with what it
    said, once; True if there is one."""
    dead = False
    for s in SERVERS:
        if not s.finished and s.p.poll() is not None:
            dead = True
            if not s.reported:
                s.reported = True
                fail("the server %s ended (exit %s) while its agents played: %s" %
                     (os.path.basename(s.dir), s.p.returncode, s.err()[-1500:]))
    return dead


def join(ts):
    """Waits for the agents' threads, failing at once when a client dies
    (its traceback) or a server ends under them (its output): then the
    remaining clients are closed rather than left to their time-outs. A
    hung server is CTest's time-out."""
    def died():
        for t in ts:
            if t.agent.died and not getattr(t.agent, "reported", False):
                t.agent.reported = True
                fail("the client %s died: %s" % (t.agent.team, t.agent.died))

    while any(t.is_alive() for t in ts):
        for t in ts:
            t.join(0.1)  # a poll of the processes, not a time limit
            died()
        if dead_server():
            for t in ts:
                try:
                    t.agent.ws.s.shutdown(socket.SHUT_RDWR)  # wakes its recv
                except OSError:
                    pass
    died()


def check_agents(part, agents, games):
    for a in agents:
        for e in a.errors[:5]:
            fail("%s: %s saw: %s" % (part, a.team, e))
        if a.games != games:
            fail("%s: %s played %d games, not %d" % (part, a.team, a.games, games))
        if a.requests.count("FINISH") != games:
            fail("%s: %s got FINISH %d times" % (part, a.team, a.requests.count("FINISH")))


def part_five():
    s = Server("five", ["--seed", "11"])
    agents = []
    for team in ("kanolab", "kanolab", "wolfpack", "tohoku", "kyoto"):
        # kyoto's talks have a line break and a tab: dropped, a space
        talk = (lambda a, p: "first\nline\tsecond") if team == "kyoto" else None
        agents.append(nlpclient.Agent(s.port, team, talk=talk))
        # one at a time: each is named before the next connects
        agents[-1].handle(json.loads(agents[-1].ws.recv()))
        agents[-1].ws.send(agents[-1].team)
    for a in agents:
        a.requests = []
    join(run_agents(agents))
    s.finish("five", 1)
    check_agents("five", agents, 1)
    log = s.log_text()
    names = set(re.findall(r"^0,status,\d+,\w+,\w+,(.*)$", log, re.M))
    if names != {"kanolab", "kanolab2", "wolfpack", "tohoku", "kyoto"}:
        fail("five: the log's names are %r" % sorted(names))
    # every agent heard every talk exactly once, by character name
    logged = len(re.findall(r"^\d+,talk,", log, re.M))
    for a in agents:
        if not a.talks:
            fail("five: %s heard no talk" % a.team)
        for d, i, who, text in a.talks:
            if who not in ("ミナト", "タクミ", "ケンジ", "リュウジ", "ダイスケ"):
                fail("five: a speaker called %r" % who)
    if logged == 0:
        fail("five: no talk in the log")
    if not re.search(r"^0,talk,\d+,\d+,\d+,firstline second$", log, re.M):
        fail("five: a talk's line break and tab are not a talk of one line as the official server makes it")


def part_mixed():
    long_text = "x" * 80 + " @ミナト " + "y" * 80
    s = Server("mixed", ["--seed", "21", "--games", "2"] + nlpclient.lua(4, 2))
    # closed after each game, as by the official server: it connects again
    for k in range(2):
        a = nlpclient.Agent(s.port, "solo", talk=lambda ag, p: long_text)
        join(run_agents([a]))
        check_agents("mixed", [a], 1)
    s.finish("mixed", 2)
    log = s.log_text()
    cut = "x" * 50 + "@ミナト " + "y" * 50
    if a.me != "ミナト" and cut + "\n" not in log:
        fail("mixed: the long talk was not cut to the length rule in the log")
    if long_text in log:
        fail("mixed: a talk past the length rule is in the log")
    heard = [t for (_, _, w, t) in a.talks if w == a.me]
    if heard and any(len(t.replace(" ", "")) > 120 for t in heard):
        fail("mixed: the agent was sent its own talk uncut")
    ev = open(os.path.join(s.dir, "events.jsonl"), encoding="utf-8").read()
    if "cut to the length rule" not in ev:
        fail("mixed: no event says a talk was cut")
    # the Lua seats' protocol sentences: the log keeps them as said, the NLP
    # agent hears them rendered in Japanese with the characters' names
    if not re.search(r"^\d+,talk,\d+,\d+,\d+,(COMINGOUT|VOTE|ESTIMATE|DIVINED|REQUEST|BECAUSE)\b.*Agent\[\d\d\]",
                     log, re.M):
        fail("mixed: no Lua seat's protocol sentence is in the log as it was said")
    raw = [t for (_, _, w, t) in a.talks
           if "Agent[" in t or re.match(r"(COMINGOUT|VOTE|ESTIMATE|DIVINED|REQUEST|BECAUSE) ", t)]
    if raw:
        fail("mixed: the NLP agent heard protocol sentences unrendered: %r" % raw[:3])
    if not any(w != a.me and re.search(r"(ミナト|タクミ|ケンジ|リュウジ|ダイスケ)(は|が|を|に)", t) for (_, _, w, t) in a.talks):
        fail("mixed: the NLP agent heard no rendered sentence naming a character")


def part_thirteen():
    s = Server("thirteen", ["-n", "13", "--preset", "nlp13", "--seed", "3"] + nlpclient.lua(10, 4))
    agents = [nlpclient.Agent(s.port, "t%d" % k) for k in range(3)]
    join(run_agents(agents))
    s.finish("thirteen", 1)
    check_agents("thirteen", agents, 1)


def closed(ws):
    """Reads until the server closes; the close code (None without one)."""
    try:
        while True:
            ws.recv()
    except (nlpclient.Closed, OSError):
        pass
    ws.close()
    return ws.close_code


def part_frames():
    # two remote seats: a named client waits in the lobby alone, owed nothing
    s = Server("frames", ["--seed", "5", "--max-message", "4096", "--time-limit", "5000"] + nlpclient.lua(3, 3))
    hostile = [
        ("binary", lambda ws: ws.send_raw(ws.frame(2, b"team"))),
        ("huge", lambda ws: ws.send("t" * 5000)),
        ("twice", lambda ws: (ws.send("dup"), ws.send("dup"))),
    ]
    for what, act in hostile:
        ws = nlpclient.WS(s.port, timeout=LIVE)
        p = json.loads(ws.recv())
        if p != {"request": "NAME"}:
            fail("frames: the first message is %r" % p)
        act(ws)
        code = closed(ws)
        note("frames: %s: closed (code %s)" % (what, code))
    agents = [nlpclient.Agent(s.port, "honest"), nlpclient.Agent(s.port, "honest")]
    join(run_agents(agents))
    s.finish("frames", 1)
    check_agents("frames", agents, 1)
    log = s.log_text()
    if "dup" in log or "honest2" not in log:
        fail("frames: the log's names are wrong: %s" % log[:400])
    if "nobody asked for" not in s.err():
        fail("frames: the second answer to NAME was not refused")


class Mute(nlpclient.Agent):
    """Answers until its first TALK, then never again, connected still
    (or, with stay False, it goes at that TALK)."""
    stay = True

    def play(self):
        try:
            while True:
                p = json.loads(self.ws.recv())
                if p["request"] == "TALK":
                    break
                a = self.handle(p)
                if p["request"] in nlpclient.REPLY:
                    self.ws.send(a)
            if self.stay:
                closed(self.ws)
        except (nlpclient.Closed, OSError):
            pass
        self.ws.close()


class Vanish(Mute):
    """Goes at its first TALK."""
    stay = False


class Odd(nlpclient.Agent):
    """Votes (and acts) on nobody's name; talks bytes that are not UTF-8
    when bad_bytes, else a plain sentence."""
    def __init__(self, port, team, bad_bytes):
        super().__init__(port, team)
        self.bad_bytes = bad_bytes

    def play(self):
        try:
            while True:
                p = json.loads(self.ws.recv())
                a = self.handle(p)
                r = p["request"]
                if r in nlpclient.TARGET:
                    self.ws.send("nobody at all")
                elif r in ("TALK", "WHISPER"):
                    if self.bad_bytes:
                        self.ws.send_raw(self.ws.frame(1, b"bad \xff\xfe bytes"))
                    else:
                        self.ws.send("hello")
                elif r == "NAME":
                    self.ws.send(a)
        except (nlpclient.Closed, OSError):
            pass
        self.ws.close()


def part_silence():
    # one remote seat a game, small time-outs: only the silent ones meet them
    # without the NAME ping (ping_timeout_ms=0), --max-timeouts puts it out
    # A server of its own for the client silent at NAME: a --name-timeout
    # short enough for the test would close an honest agent too on a loaded
    # machine (its answer late), so no agent that answers meets this one.
    n = Server("silence-name", ["--seed", "9", "--name-timeout", "50", "--games", "1"] + nlpclient.lua(4, 1))
    ws = nlpclient.WS(n.port, timeout=LIVE)
    closed(ws)
    if "no answer to NAME" not in n.err():
        fail("silence: the silent client was not closed for want of a NAME")
    n.finished = True
    n.p.terminate()
    n.p.communicate()
    # The agents below answer NAME whenever they can (the default time-out
    # of minutes is never met) and then keep silent in their games: only
    # they meet --time-limit.
    s = Server("silence", ["--seed", "9", "--name-timeout", "600000", "--time-limit", "50", "--max-timeouts", "2",
                           "--set", "ping_timeout_ms=0", "--games", "2"] + nlpclient.lua(4, 2))
    join(run_agents([Mute(s.port, "mute")]))  # game 1: put out of it, closed
    join(run_agents([Vanish(s.port, "vanish")]))  # game 2: gone at its first TALK
    s.finish("silence", 2)
    err = s.err()
    if "mute (in a game): TALK: the 2nd answer in a row past 50 ms (--max-timeouts)" not in err:
        fail("silence: the silent agent was not put out of its game")
    if "vanish (in a game): the connection was closed" not in err:
        fail("silence: the agent that went is not reported")


def part_odd():
    s = Server("odd", ["--seed", "9", "--games", "2"] + nlpclient.lua(4, 2))
    # game 1: not UTF-8 in a text frame: closed (as the RFC says), out of its game
    join(run_agents([Odd(s.port, "\x1b[31mred", True)]))
    # game 2: votes for nobody's name: that agent's fault, the game goes on
    # (its name past 64 bytes: cut before the character that does not fit)
    odd = Odd(s.port, "odd" + "\u540d" * 40, False)
    join(run_agents([odd]))
    s.finish("odd", 2)
    check_agents("odd", [odd], 1)
    ev = open(os.path.join(s.dir, "events.jsonl"), encoding="utf-8").read()
    if "no agent is called" not in ev:
        fail("odd: a vote for nobody's name is not a fault of that agent")
    if "odd" + "\u540d" * 20 + " joined" not in s.err():
        fail("odd: a long name is not cut on a character boundary: %s" % s.err()[-800:])
    if "\\e[31mred (in a game): the connection was closed" not in s.err():
        fail("odd: the agent that sent bytes that are not UTF-8 is not reported (escaped)")


def part_interrupt():
    s = Server("interrupt", ["--seed", "5"] + nlpclient.lua(4, 2))
    ws = nlpclient.WS(s.port, timeout=LIVE)
    ws.recv()
    ws.send("stall")
    while json.loads(ws.recv())["request"] != "TALK":
        pass
    s.p.send_signal(signal.SIGINT)  # while the game waits for this agent
    closed(ws)
    try:
        s.p.communicate(timeout=LIVE)
    except subprocess.TimeoutExpired:
        s.p.kill()
        s.p.communicate()
        fail("interrupt: the server did not end")
    if s.p.returncode != 0:
        fail("interrupt: exit %d: %s" % (s.p.returncode, s.err()[-800:]))
    if not os.path.exists(os.path.join(s.dir, "logs", "5.log.unfinished")):
        fail("interrupt: the abandoned game's log is not kept as 5.log.unfinished")


def main():
    parts = {"five": part_five, "mixed": part_mixed, "thirteen": part_thirteen, "frames": part_frames,
             "silence": part_silence, "odd": part_odd,
             "interrupt": part_interrupt}
    try:
        for name in PARTS or list(parts):
            note("part " + name)
            parts[name]()
    finally:
        for srv in SERVERS:  # a part that broke off leaves none running
            if srv.p.poll() is None:
                srv.p.kill()
                srv.p.communicate()
    if failures.count:
        print("serve_nlp: %d failure(s)%s" % (failures.count, "" if testtmp.keep() else
                                               " (AIWOLF_KEEP_TMP=1 keeps the servers' files)"))
        sys.exit(1)
    print("serve_nlp: all passed")


if __name__ == "__main__":
    main()
