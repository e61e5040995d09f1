#!/usr/bin/env python3
"""aiwolf serve against hostile clients (docs/network.md). Each part runs
its own server with honest clients (aiwolf connect, or the honest client
below) beside the hostile ones; every part checks that the server exits 0,
that the honest clients' games all finish with logs `aiwolf check` calls
legal, and what the hostile clients got:
  wire       slow senders (one byte at a time), lines cut mid-JSON, invalid
             UTF-8, a 64 KiB + 1 line, names of other agents (impostors)
  vanish     a client that sends half an answer and goes, at every kind of
             request (NAME, ROLE, INITIALIZE, ..., FINISH): out of its game
             (fault lost), the game goes on
  timeouts   --name-timeout and --lobby-timeout close the connections
  silent     --max-timeouts puts a silent agent out of its game
  fifo       the lobby is first come, first served
  per-address, flood
             past --max-per-address and --max-connections a connection
             gets one line and is closed; 1,000 connections at once (silent,
             too long a name, a megabyte without a newline) while honest
             games go on; the server's memory (VmHWM) stays bounded
Nothing here depends on timing: time-outs are set small and the outcome
(closed, games finished) is asserted, not how long it took.
    serve_hostile.py AIWOLF [PART...]"""
import glob
import json
import os
import re
import resource
import selectors
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import testtmp  # noqa: E402

AIWOLF = sys.argv[1]
PARTS = sys.argv[2:]
TMP = testtmp.tmpdir("aiwolf_serve_hostile.")
fails = 0
LIVE = 120  # seconds within which something that must happen has happened (a hung server fails, not hangs)


def fail(what):
    global fails
    fails += 1
    print("serve_hostile: FAIL " + what, flush=True)


def note(what):
    print("serve_hostile: " + what, flush=True)


# The test process holds a thousand sockets at once.
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _hard != resource.RLIM_INFINITY and _hard < 1200:
    note("the hard descriptor limit is %d: the flood part needs 1200; skipped" % _hard)
    NOFILE_OK = False
else:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, _hard) if _hard != resource.RLIM_INFINITY else 4096,
                                                _hard))
    NOFILE_OK = True


class Serve:
    """aiwolf serve -p 0 ARGS, its logs and events in a folder of its own."""

    def __init__(self, name, args, nofile=None):
        self.name = name
        self.dir = os.path.join(TMP, name)
        os.makedirs(self.dir)
        self.logs = os.path.join(self.dir, "logs")
        self.events = os.path.join(self.dir, "events.jsonl")
        self.errpath = os.path.join(self.dir, "serve.err")
        err = open(self.errpath, "w")

        def limit():
            if nofile:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, _hard))

        self.p = subprocess.Popen([AIWOLF, "serve", "-p", "0", "--log-dir", self.logs, "--events", self.events] +
                                  args, stdout=subprocess.PIPE, stderr=err, text=True, preexec_fn=limit)
        err.close()
        m = re.match(r"listening on port (\d+)", self.p.stdout.readline())
        self.port = int(m.group(1)) if m else 0
        if not self.port:
            fail("%s: serve did not start: %s" % (name, self.err()))
        self.peak_fds = 0

    def err(self):
        with open(self.errpath, errors="replace") as f:
            return f.read()

    def wait_err(self, what, secs=LIVE):
        """Until serve's log has what (a regex); False if it never came."""
        end = time.time() + secs
        while time.time() < end:
            if re.search(what, self.err()):
                return True
            if self.p.poll() is not None:
                return bool(re.search(what, self.err()))
            time.sleep(0.02)
        return False

    def sample(self):
        """Its descriptors now (the peak is kept) and its peak RSS in kB."""
        try:
            self.peak_fds = max(self.peak_fds, len(os.listdir("/proc/%d/fd" % self.p.pid)))
            with open("/proc/%d/status" % self.p.pid) as f:
                return int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1))
        except (OSError, AttributeError):
            return 0

    def finish(self, games, honest=()):
        """Waits for serve and the honest clients; checks the exit statuses
        and that there are `games` legal logs."""
        try:
            rc = self.p.wait(timeout=300)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            rc = "hung"
        self.summary = self.p.stdout.read()
        self.p.stdout.close()
        if rc != 0:
            fail("%s: serve exited %s: %s" % (self.name, rc, self.err()[-3000:]))
        for c in honest:
            c.finish(self.name)
        logs = sorted(glob.glob(os.path.join(self.logs, "*.log")))
        if len(logs) != games:
            fail("%s: %d logs, want %d: %s" % (self.name, len(logs), games, logs))
        elif subprocess.run([AIWOLF, "check", "--quiet"] + logs).returncode != 0:
            fail("%s: aiwolf check finds the logs illegal" % self.name)
        if "AddressSanitizer" in self.err() or "runtime error" in self.err():
            fail("%s: sanitizer report: %s" % (self.name, self.err()[-3000:]))
        return logs

    def calls(self):
        out = []
        with open(self.events) as f:
            for line in f:
                e = json.loads(line)
                if e.get("event") == "call":
                    out.append(e)
        return out


class Connect:
    """aiwolf connect: an honest client."""

    def __init__(self, port, name, agent="agents/random.lua"):
        self.name = name
        self.p = subprocess.Popen([AIWOLF, "connect", "-p", str(port), "-n", name, "--quiet", agent],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def finish(self, part):
        try:
            _, err = self.p.communicate(timeout=LIVE)
        except subprocess.TimeoutExpired:
            self.p.kill()
            _, err = self.p.communicate()
        if self.p.returncode != 0:
            fail("%s: honest client %s exited %s: %s" % (part, self.name, self.p.returncode, err[-2000:]))


class Raw:
    """A connection played here: lines in, bytes out."""

    def __init__(self, port, src="127.0.0.1", block=True):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.s.bind((src, 0))
        self.buf = b""
        self.eof = False
        if block:
            self.s.settimeout(LIVE)
            self.s.connect(("127.0.0.1", port))

    def line(self):
        """The next line (without its newline), or None once the server
        closed the connection."""
        while b"\n" not in self.buf:
            try:
                d = self.s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                d = b""
            if not d:
                self.eof = True
                return None
            self.buf += d
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def packet(self):
        line = self.line()
        return None if line is None else json.loads(line)

    def send(self, data, slow=False):
        try:
            if slow:
                for i in range(len(data)):
                    self.s.sendall(data[i:i + 1])
                    time.sleep(0.001)
            else:
                self.s.sendall(data)
            return True
        except OSError:
            return False

    def closed_by_server(self):
        """Reads until the server closes; True if it did."""
        while self.line() is not None:
            pass
        return self.eof

    def close(self):
        self.s.close()


WANTS = {"NAME", "ROLE", "TALK", "WHISPER", "VOTE", "DIVINE", "GUARD", "ATTACK"}


class Honest:
    """The answers of an honest agent: Over, and a living agent other than
    itself. Keeps what the full packets said."""

    def __init__(self, name, role="none"):
        self.name, self.role = name, role
        self.me, self.alive = 0, []

    def answer(self, p):
        info = p.get("gameInfo")
        if info:
            self.me = info.get("agent", self.me)
            self.alive = [int(a) for a, st in (info.get("statusMap") or {}).items() if st == "ALIVE"]
        r = p["request"]
        if r == "NAME":
            return self.name.encode() + b"\n"
        if r == "ROLE":
            return self.role.encode() + b"\n"
        if r in ("TALK", "WHISPER"):
            return b"Over\n"
        if r in WANTS:
            others = [a for a in self.alive if a != self.me] or [1]
            return b'{"agentIdx":%d}\n' % others[0]
        return None


def play(c, agent, until=None, each=None):
    """Plays c with agent's answers until the server closes it, or until a
    request of kind `until` came (returned). each(packet) may answer
    instead (bytes, or False to answer nothing)."""
    while True:
        p = c.packet()
        if p is None:
            return None
        if until and p["request"] == until:
            agent.answer(p)
            return p
        out = each(p) if each else None
        if out is None:
            out = agent.answer(p)
        if out:
            c.send(out)


# ---------------------------------------------------------------------------

def part_wire():
    """One hostile client at a time beside two connect clients and two local
    agents, two games each: the honest games finish, legal, whatever it
    sends."""

    def slow(p, h):
        out = h.answer(p)
        if out:
            c.send(out, slow=True)
        return False

    def cut(p, h):
        r = p["request"]
        if r in ("VOTE", "DIVINE", "ATTACK", "GUARD"):
            return b'{"agentIdx":\n'  # a whole line, cut JSON: no answer
        if r == "TALK":
            if state.get("half"):
                state["half"] = False
                return b'er\n'  # the rest of a line whose deadline passed: dropped
            state["half"] = True
            return b'{"Ov'  # the deadline passes on half a line
        return None

    def utf8(p, h):
        r = p["request"]
        if r in ("TALK", "WHISPER"):
            return b"\xc3\x28 \xed\xa0\x80 \xf8\x88\x80\x80\x80 AGREE \xff\n"
        if r in ("VOTE", "DIVINE", "ATTACK", "GUARD"):
            return b'{"agentIdx":\xff1}\n'
        return None

    def long(p, h):
        if p["request"] == "TALK":
            return b"x" * 65537 + b"\n"
        return None

    names = {"slow": b"slowpoke", "cut": b"cutter", "utf8": b"\xff\xfebad\xc0name", "long": b"longline",
             "impostor": b"honest1"}
    behaviour = {"slow": slow, "cut": cut, "utf8": utf8, "long": long, "impostor": lambda p, h: None}
    for kind in ("slow", "cut", "utf8", "long", "impostor"):
        state = {}
        games = 1 if kind == "long" else 2  # out of its game, it leaves the next one a seat short
        # --max-timeouts 0: the half lines' time-outs do not put it out; it plays both games
        s = Serve("wire_" + kind, ["-n", "5", "--games", str(games), "--seed", "31", "--time-limit", "300",
                                   "--max-timeouts", "0",
                                   "--agent", "4=agents/random.lua", "--agent", "5=agents/sample.lua"])
        c = Raw(s.port)
        honest = [Connect(s.port, "honest1"), Connect(s.port, "honest2")]
        h = Honest("")
        p = c.packet()
        if not p or p["request"] != "NAME":
            fail("wire %s: no NAME request: %s" % (kind, p))
            continue
        c.send(names[kind] + b"\n", slow=(kind == "slow"))
        requests = [0]

        def each(p, kind=kind, h=h):
            requests[0] += 1
            return behaviour[kind](p, h)

        play(c, h, each=each)
        logs = s.finish(games, honest)
        c.close()
        if requests[0] < 5:
            fail("wire %s: the hostile client got only %d requests" % (kind, requests[0]))
        faults = [e for e in s.calls() if e.get("fault")]
        if kind in ("cut", "utf8", "long") and not faults:
            fail("wire %s: no fault in the events" % kind)
        if kind == "long" and not any(e["fault"] == "lost" for e in faults):
            fail("wire long: a 64 KiB + 1 line did not put the client out of its game")
        if kind == "impostor":
            # Two agents called honest1: both play, and the log keeps them apart by number.
            for log in logs:
                with open(log) as f:
                    n = sum(1 for l in f if l.startswith("0,status,") and l.rstrip().endswith(",honest1"))
                if n != 2:
                    fail("wire impostor: %s has %d agents named honest1, want 2" % (log, n))
        note("wire %s: %d requests, %d faults" % (kind, requests[0], len(faults)))
    # A NAME line over the NAME limit (4 KiB): closed before it has a name.
    s = Serve("wire_longname", ["-n", "5", "--games", "1", "--seed", "32",
                                "--agent", "3=agents/random.lua", "--agent", "4=agents/random.lua",
                                "--agent", "5=agents/random.lua"])
    c = Raw(s.port)
    c.line()
    c.send(b"n" * 4097 + b"\n")
    if not c.closed_by_server():
        fail("wire: a NAME line of 4 KiB + 1 did not close the connection")
    honest = [Connect(s.port, "honest1"), Connect(s.port, "honest2")]
    s.finish(1, honest)
    if "joined" in s.err().split("honest")[0]:
        fail("wire: the connection with a 4 KiB + 1 name joined")


def part_vanish():
    """A client that sends half an answer (or nothing, for a request that
    wants none) and goes, at the first request of each kind: two connect
    clients and twelve local agents play on; from the game's start on, the
    hostile agent is out (fault lost)."""
    role_for = {"WHISPER": "WEREWOLF", "ATTACK": "WEREWOLF", "DIVINE": "SEER", "GUARD": "BODYGUARD"}
    local = []
    for a in range(2, 14):
        local += ["--agent", "%d=agents/random.lua" % a]
    for kind in ("NAME", "ROLE", "INITIALIZE", "DAILY_INITIALIZE", "TALK", "WHISPER", "VOTE", "DIVINE", "GUARD",
                 "ATTACK", "DAILY_FINISH", "FINISH"):
        s = Serve("vanish_" + kind, ["-n", "15", "--games", "1", "--seed", "5", "--time-limit", "2000"] + local)
        c = Raw(s.port)
        honest = [Connect(s.port, "honest1"), Connect(s.port, "honest2")]
        h = Honest("vanisher", role_for.get(kind, "none"))
        p = play(c, h, until=kind)
        if p is None:
            fail("vanish %s: the hostile client never got %s (another seed?)" % (kind, kind))
            c.close()
            s.finish(1, honest)
            continue
        me = h.me
        if kind in WANTS:
            c.send(b"Ov" if kind in ("TALK", "WHISPER", "NAME", "ROLE") else b'{"agentIdx"')
        c.close()
        if kind == "NAME":  # it never had a name: the game needs another
            honest.append(Connect(s.port, "honest3"))
        s.finish(1, honest)
        lost = [e for e in s.calls() if e.get("fault") == "lost"]
        if kind not in ("NAME", "FINISH") and (not lost or any(me and e["agent"] != me for e in lost)):
            fail("vanish %s: agent %d is not out of its game alone: %s" % (kind, me, lost[:3]))
        note("vanish %s: agent %d gone, %d requests lost" % (kind, me, len(lost)))


def part_timeouts():
    """--name-timeout closes a connection that never answers NAME, and one
    that sends it a byte at a time without ending it; --lobby-timeout closes
    a named agent that waits with no game for it. Then honest clients play."""
    s = Serve("timeouts", ["-n", "5", "--games", "1", "--seed", "33", "--name-timeout", "200",
                           "--lobby-timeout", "300", "--agent", "3=agents/random.lua",
                           "--agent", "4=agents/random.lua", "--agent", "5=agents/random.lua"])
    mute = Raw(s.port)
    mute.line()
    dribble = Raw(s.port)
    dribble.line()
    for b in b"dribbling, never ending":
        if not dribble.send(bytes([b])):
            break
        time.sleep(0.05)
    waiter = Raw(s.port)
    waiter.line()
    waiter.send(b"waiter\n")  # alone: the games need two remote agents
    if not mute.closed_by_server():
        fail("timeouts: a connection that never answered NAME was not closed")
    if not dribble.closed_by_server():
        fail("timeouts: a NAME sent a byte at a time, never ended, was not closed")
    if not waiter.closed_by_server():
        fail("timeouts: an agent alone in the lobby was not closed")
    if not s.wait_err(r"waiter \(waiting\): waited 0\.3 s in the lobby"):
        fail("timeouts: the lobby time-out is not in the log")
    # one line for the two (such lines come at most every 10 s: a flood's are many)
    if not re.search(r"closing a connection before its NAME: no answer to NAME in time", s.err()):
        fail("timeouts: the NAME time-out is not in the log: %s" % s.err())
    s.finish(1, [Connect(s.port, "honest1"), Connect(s.port, "honest2")])


def part_silent():
    """--max-timeouts 2: an agent that answers NAME, then nothing, is out
    of its game at its second time-out (fault lost, the reason named), and
    the game goes on to its end, legal."""
    s = Serve("silent", ["-n", "5", "--games", "1", "--seed", "35", "--time-limit", "100", "--max-timeouts", "2",
                         "--no-role-requests",
                         "--agent", "3=agents/random.lua", "--agent", "4=agents/random.lua",
                         "--agent", "5=agents/random.lua"])
    c = Raw(s.port)
    c.line()
    c.send(b"silent\n")
    honest = Connect(s.port, "honest1")
    me = 0
    while True:
        p = c.packet()
        if p is None:
            break
        me = (p.get("gameInfo") or {}).get("agent", me)
    s.finish(1, [honest])
    c.close()
    timeouts = [e for e in s.calls() if e.get("agent") == me and e.get("fault") == "timeout"]
    lost = [e for e in s.calls() if e.get("agent") == me and e.get("fault") == "lost"]
    if not me or len(timeouts) != 1 or not lost or "--max-timeouts" not in lost[0].get("message", ""):
        fail("silent: agent %d: %d time-outs then %s; want one time-out, then out (--max-timeouts)" %
             (me, len(timeouts), lost[:1]))


def part_fifo():
    """First come, first served: 'first' joins, plays game 1 and holds it
    until 'second' has joined; game 2 is second's (it waited longer)."""
    # a long time limit: game 1 waits for first's answers while second joins
    s = Serve("fifo", ["-n", "3", "--games", "2", "--seed", "40", "--time-limit", "600000",
                       "--agent", "2=agents/random.lua",
                       "--agent", "3=agents/random.lua"])
    c = Raw(s.port)
    h = Honest("first")
    if play(c, h, until="INITIALIZE") is None:
        fail("fifo: first got no game")
    second = Connect(s.port, "second")
    if not s.wait_err(r"second joined"):
        fail("fifo: second never joined")
    play(c, h)
    logs = s.finish(2, [second])
    c.close()
    who = []
    for log in logs:
        with open(log) as f:
            text = f.read()
        who.append("first" if ",first\n" in text else "second" if ",second\n" in text else "?")
    if who != ["first", "second"]:
        fail("fifo: the games went to %s, want first then second" % who)


def part_per_address():
    """--max-per-address 3 (one policy with serve --nlp's): three silent
    connections from 127.0.0.2, then two more: each of those drops the
    oldest of the silent ones to make room (the first two are closed, the
    newest get NAME); once the three from 127.0.0.2 are named, a sixth is
    refused with one line; 127.0.0.1 still gets in, and the game is played
    to its end, legal."""
    # a time limit no load reaches: c, seated at once, keeps its place
    # (and 127.0.0.2 its three) however long the rest takes
    s = Serve("per_address", ["-n", "5", "--games", "1", "--seed", "34", "--max-per-address", "3",
                              "--name-timeout", "600000", "--time-limit", "600000", "--agent", "2=agents/random.lua",
                              "--agent", "3=agents/random.lua", "--agent", "4=agents/random.lua",
                              "--agent", "5=agents/random.lua"])
    held = [Raw(s.port, "127.0.0.2") for _ in range(5)]
    first = [c.line() for c in held]
    if any(not (l or b"").startswith(b'{"') for l in first):
        fail("per-address: the first lines were %s; want five NAME requests" % first)
    # the server closed the two oldest when the fourth and fifth came
    for i in (0, 1):
        if not held[i].closed_by_server():
            fail("per-address: the silent connection %d was not dropped" % i)
    # the three left answer NAME: the first plays the one remote seat, the
    # two others wait in the lobby
    names = ["c", "d", "e"]
    for c, n in zip(held[2:], names):
        c.send(n.encode() + b"\n")
        if not s.wait_err(r"\b%s joined" % n):
            fail("per-address: %s did not join" % n)
    sixth = Raw(s.port, "127.0.0.2")
    line = sixth.line()
    if not line or b"too many connections from your address" not in line:
        fail("per-address: the sixth connection, with the three named, got %s; want a refusal" % line)
    sixth.close()
    other = Raw(s.port)
    if not (other.line() or b"").startswith(b'{"'):
        fail("per-address: 127.0.0.1 did not get NAME")
    other.close()
    play(held[2], Honest("c"))
    s.finish(1)
    for c in held:
        c.close()
    err = s.err()
    if not re.search(r"closing a connection before its NAME: dropped to make room for a new connection "
                     r"\(over --max-per-address\)", err):
        fail("per-address: the drop is not in the log: %s" % err)
    if not re.search(r"refusing connections \(over --max-per-address\): 127\.0\.0\.2 has 3 open", err):
        fail("per-address: the refusal is not in the log: %s" % err)


def flood_turn(sel):
    """One turn of part_flood's connections: reads, and writes what each
    kind writes; returns how many got their first line or were closed."""
    settled = 0
    for key, ev in sel.select(timeout=0.5):
        c = key.data
        if ev & selectors.EVENT_READ:
            try:
                d = c.s.recv(65536)
            except OSError:
                d = b""
            c.got += d
            if not d or b"\n" in c.got:  # its first line, or closed: settled
                if not c.done:
                    c.done = True
                    settled += 1
                if c.kind == "silent" or not d or b"too many" in c.got:
                    sel.unregister(c.s)
                    continue
                sel.modify(c.s, selectors.EVENT_READ | selectors.EVENT_WRITE, c)
        if ev & selectors.EVENT_WRITE:
            if c.kind == "silent" or (c.kind == "longname" and c.sent):
                sel.modify(c.s, selectors.EVENT_READ, c)
                continue
            data = b"n" * 5000 + b"\n" if c.kind == "longname" else CHUNK
            try:
                c.sent += c.s.send(data)
            except OSError:
                pass
            if c.kind == "megabyte" and c.sent >= 1 << 20:
                sel.modify(c.s, selectors.EVENT_READ, c)
    return settled


CHUNK = b"m" * 65536


def part_flood():
    """1,000 connections at once on a server whose descriptor limit is 400
    (so at most 328 connections): half silent, a quarter with a NAME line
    too long, a quarter sending a megabyte without a newline. None is
    refused: each new one past the limit drops the oldest connection not
    yet named (the policy of serve --nlp too), so every one is asked its
    NAME. Then, with silent connections filling the server, two honest
    clients (aiwolf connect and a Python one) come, get in the same way,
    and play the games to the end, legal; the log says so in a line now and
    then, not per connection; the server's peak RSS stays under 150 MB."""
    if not NOFILE_OK:
        return
    s = Serve("flood", ["-n", "5", "--games", "6", "--parallel", "2", "--seed", "50", "--time-limit", "2000",
                        "--name-timeout", "600000", "--max-per-address", "100000",
                        "--agent", "3=agents/random.lua", "--agent", "4=agents/sample.lua",
                        "--agent", "5=agents/random.lua"], nofile=400)
    t0 = time.time()
    sel = selectors.DefaultSelector()
    flood = []
    pending, peak_kb = 0, 0
    for i in range(1000):
        # at most 100 waiting for their first line: past the listening
        # queue's length Linux may drop a connection its client believes
        # made, which then waits for ever (a kernel matter, not serve's)
        while pending >= 100:
            pending -= flood_turn(sel)
        c = Raw(s.port, block=False)
        c.s.setblocking(False)
        c.kind = "silent" if i % 4 < 2 else "longname" if i % 4 == 2 else "megabyte"
        c.sent = 0
        c.got = b""
        c.done = False
        try:
            c.s.connect(("127.0.0.1", s.port))
        except BlockingIOError:
            pass
        except OSError:
            c.done = True
        flood.append(c)
        sel.register(c.s, selectors.EVENT_READ | selectors.EVENT_WRITE, c)
        pending += not c.done
    end = time.time() + LIVE
    while pending and time.time() < end:
        pending -= flood_turn(sel)
        peak_kb = max(peak_kb, s.sample())
    told = sum(1 for c in flood if b"too many connections" in c.got)
    named = sum(1 for c in flood if c.got.startswith(b'{"') and b"NAME" in c.got)
    note("flood: %d connections asked NAME, %d told too many, %d unsettled" % (named, told, pending))
    if pending:
        fail("flood: %d connections got neither a NAME request nor a refusal nor a close" % pending)
    if told:
        fail("flood: %d connections were refused; want the oldest unnamed dropped instead" % told)
    if named < 500:  # more than the server holds: the silent ones at least made room for the others
        fail("flood: only %d connections were asked NAME" % named)
    # The flood is in, its silent connections fill the server: the honest
    # clients now.
    honest = Connect(s.port, "honest1")
    gate = Raw(s.port)
    play(gate, Honest("gate"), each=lambda p: peak_kb_note(s))
    s.finish(6, [honest])
    gate.close()
    for c in flood:
        c.s.close()
    peak_kb = max(peak_kb, PEAK[0])
    secs = time.time() - t0
    lines = len(re.findall(r"closing a connection before its NAME", s.err()))
    note("flood: %d log lines about drops in %.1f s; serve's peak RSS %.1f MB, at most %d descriptors" %
         (lines, secs, peak_kb / 1024, s.peak_fds))
    if lines < 1 or lines > 3 + secs / 10:
        fail("flood: %d log lines about drops in %.1f s (want one per 10 s at most)" % (lines, secs))
    if peak_kb > 150 * 1024:
        fail("flood: serve's peak RSS %.1f MB" % (peak_kb / 1024))


PEAK = [0]


def peak_kb_note(s):
    """Keeps serve's peak RSS while a game is played; answers nothing."""
    PEAK[0] = max(PEAK[0], s.sample())
    return None


def open_flood(port, n):
    """n connections at once that stay silent; returns them once each got
    its first line or was closed."""
    sel = selectors.DefaultSelector()
    flood = []
    pending = 0
    for _ in range(n):
        while pending >= 100:  # as in part_flood
            pending -= read_turn(sel)
        c = Raw(port, block=False)
        c.s.setblocking(False)
        c.got = b""
        try:
            c.s.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        except OSError:
            continue
        flood.append(c)
        sel.register(c.s, selectors.EVENT_READ, c)
        pending += 1
    end = time.time() + LIVE
    while pending and time.time() < end:
        pending -= read_turn(sel)
    sel.close()
    return flood, pending


def read_turn(sel):
    """Reads what came for open_flood's connections; returns how many got
    their first line or were closed."""
    settled = 0
    for key, _ in sel.select(timeout=0.5):
        c = key.data
        try:
            d = c.s.recv(65536)
        except OSError:
            d = b""
        c.got += d
        if not d or b"\n" in c.got:
            sel.unregister(c.s)
            settled += 1
    return settled


def part_emfile():
    """Out of descriptors (ulimit -n 128, --max-connections past it): 300
    silent connections at once; those the server has no descriptor for are
    refused (accept backs off and resumes, no spin); a game that starts
    then cannot open its agents' files or its log, and waits; once the
    flood goes, the games are played, legal."""
    if not NOFILE_OK:
        return
    s = Serve("emfile", ["-n", "5", "--games", "3", "--seed", "60", "--time-limit", "2000",
                         "--name-timeout", "600000", "--max-connections", "100000", "--max-per-address", "100000",
                         "--agent", "3=agents/random.lua", "--agent", "4=agents/sample.lua",
                         "--agent", "5=agents/random.lua"], nofile=128)
    honest = Connect(s.port, "honest1")
    if not s.wait_err(r"honest1 joined"):
        fail("emfile: the honest client did not join")
    gate = Raw(s.port)
    gate.line()
    flood, pending = open_flood(s.port, 300)
    told = sum(1 for c in flood if b"out of resources" in c.got)
    note("emfile: %d connections refused for want of descriptors, %d unsettled" % (told, pending))
    if pending or not told:
        fail("emfile: %d connections unsettled, %d refused" % (pending, told))
    gate.send(b"gate\n")
    if not s.wait_err(r"game 1 cannot start now: (cannot make local seat \d|its log cannot be opened)"):
        fail("emfile: the first game did not wait for descriptors: " + s.err()[-2000:])
    for c in flood:
        c.s.close()
    play(gate, Honest("gate"))
    gate.close()
    s.finish(3, [honest])
    if "refusing connections (out of resources)" not in s.err():
        fail("emfile: the refusals are not in the log")


try:
    for name, fn in (("wire", part_wire), ("vanish", part_vanish), ("timeouts", part_timeouts), ("silent", part_silent), ("fifo", part_fifo),
                     ("per-address", part_per_address), ("flood", part_flood), ("emfile", part_emfile)):
        if not PARTS or name in PARTS:
            note("part " + name)
            fn()
finally:
    if fails and not testtmp.keep():
        note("AIWOLF_KEEP_TMP=1 keeps the servers' files")
note("ok" if not fails else "%d failure(s)" % fails)
sys.exit(1 if fails else 0)
