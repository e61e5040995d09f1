"""nlpclient: a minimal WebSocket client (RFC 6455, python3 standard library
only) and a scripted NLP-division agent for the tests of `aiwolf serve --nlp`.

The agent answers as the official aiwolf-nlp-agent does: its team name to
NAME, text to TALK and WHISPER, a character's name to VOTE, DIVINE, GUARD
and ATTACK; it checks every packet it gets (the keys of each request, names
not numbers, histories that carry only what it has not seen) and records
what it saw."""
import base64
import json
import os
import socket
import struct

LUA_AGENTS = ("agents/sample.lua", "agents/random.lua", "tests/nlpserve/chatty.lua")


def lua(n, first=1, files=LUA_AGENTS):
    """serve's --agent options for n local Lua seats numbered from first,
    the files in turn."""
    out = []
    for k in range(n):
        out += ["--agent", "%d=%s" % (first + k, files[k % len(files)])]
    return out


class Failures:
    """A test's failures: fail(what) prints "NAME: FAIL what" and counts
    it (count); the test exits 1 when count is not 0."""

    def __init__(self, name):
        self.name, self.count = name, 0

    def fail(self, what):
        self.count += 1
        print("%s: FAIL %s" % (self.name, what), flush=True)


class Closed(Exception):
    pass


class WS:
    def __init__(self, port, path="/ws", host="127.0.0.1", timeout=None, headers=(), source=None):
        self.s = socket.create_connection((host, port), timeout=timeout,
                                          source_address=(source, 0) if source else None)
        key = base64.b64encode(os.urandom(16)).decode()
        extra = "".join("%s: %s\r\n" % h for h in headers)
        req = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n%s\r\n" % (path, host, port, key, extra))
        self.s.sendall(req.encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            d = self.s.recv(4096)
            if not d:
                raise Closed("closed during the handshake")
            self.buf += d
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        self.status = head.split(b"\r\n")[0].decode()
        if " 101 " not in self.status:
            raise Closed("handshake refused: " + self.status)
        self.close_code = None

    def frame(self, opcode, payload, fin=True, mask=True):
        b0 = (0x80 if fin else 0) | opcode
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", b0, (0x80 if mask else 0) | n)
        elif n < 65536:
            head = struct.pack("!BBH", b0, (0x80 if mask else 0) | 126, n)
        else:
            head = struct.pack("!BBQ", b0, (0x80 if mask else 0) | 127, n)
        if not mask:
            return head + payload
        k = os.urandom(4)
        return head + k + bytes(c ^ k[i % 4] for i, c in enumerate(payload))

    def send(self, text):
        self.s.sendall(self.frame(1, text.encode() if isinstance(text, str) else text))

    def send_raw(self, data):
        self.s.sendall(data)

    def _need(self, n):
        while len(self.buf) < n:
            d = self.s.recv(65536)
            if not d:
                raise Closed("connection closed")
            self.buf += d
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """The next whole text message (str); Closed when the server closes."""
        parts = b""
        while True:
            b0, b1 = self._need(2)
            op, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._need(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._need(8))[0]
            payload = self._need(n)
            if op == 8:
                self.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                try:
                    self.s.sendall(self.frame(8, payload[:2]))
                except OSError:
                    pass
                raise Closed("close frame %s" % self.close_code)
            if op == 9:
                self.s.sendall(self.frame(10, payload))
                continue
            if op == 10:
                continue
            parts += payload
            if b0 & 0x80:
                return parts.decode()

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


TARGET = ("VOTE", "DIVINE", "GUARD", "ATTACK")
OFFICIAL_ROLES = {"WEREWOLF", "POSSESSED", "SEER", "BODYGUARD", "VILLAGER", "MEDIUM"}
ULID = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
REPLY = ("NAME", "TALK", "WHISPER") + TARGET


class Agent:
    """A scripted NLP agent. talk(packet) -> text; errors collects every
    check that failed."""

    def __init__(self, port, team, talk=None, path="/ws", headers=()):
        self.ws = WS(port, path=path, headers=headers)
        self.team = team
        self.talk = talk or (lambda a, p: "I am %s. @%s who do you suspect?" % (a.me, a.other()))
        self.errors = []
        self.requests = []
        self.me = None
        self.status = {}
        self.seen_talks = set()
        self.seen_whispers = set()
        self.games = 0
        self.role = None
        self.talks = []  # (day, idx, agent, text) as received

    def check(self, cond, what):
        if not cond:
            self.errors.append(what)

    def other(self):
        alive = [n for n, st in self.status.items() if st == "ALIVE" and n != self.me]
        return alive[0] if alive else self.me

    def history(self, p, key, seen):
        for t in p.get(key) or []:
            k = (t["day"], t["idx"])
            self.check(k not in seen, "%s sent twice: %r" % (key, t))
            seen.add(k)
            self.check(isinstance(t["agent"], str) and not t["agent"].isdigit(), "speaker not a name: %r" % t)
            self.check(t["agent"] in self.status, "speaker %r not in status_map" % t["agent"])
            self.check(set(t) == {"idx", "day", "turn", "agent", "text", "skip", "over"}, "talk keys %r" % sorted(t))
            if key == "talk_history":
                self.talks.append((t["day"], t["idx"], t["agent"], t["text"]))

    def handle(self, p):
        r = p["request"]
        self.requests.append(r)
        if r == "NAME":
            return self.team
        info = p.get("info")
        self.check(info is not None, "%s without info" % r)
        if info:
            self.check(isinstance(info["agent"], str), "info.agent not a name")
            self.me = info["agent"]
            self.status = info["status_map"]
            self.check(self.me in self.status, "own name not in status_map")
            self.check(all(isinstance(v, str) for v in info["role_map"].values()), "role_map")
            if r == "INITIALIZE":
                self.role = info["role_map"].get(self.me)
                self.check(self.role is not None, "own role not in role_map")
            if r in ("TALK", "WHISPER"):
                self.check("remain_count" in info, "%s without remain_count" % r)
        if info:
            # a ULID, as the official agent parses it (its log folder's time)
            gid = info.get("game_id", "")
            self.check(len(gid) == 26 and gid[0] <= "7" and all(c in ULID for c in gid), "game_id %r" % gid)
        if r in ("INITIALIZE", "DAILY_INITIALIZE"):
            self.check("setting" in p, "%s without setting" % r)
            roles = set(p.get("setting", {}).get("role_num_map", {}))
            # the official agents' Role enum: any other role breaks them
            self.check(roles <= OFFICIAL_ROLES, "role_num_map has %r" % sorted(roles - OFFICIAL_ROLES))
            self.seen_talks.clear()
            self.seen_whispers.clear()
            if r == "INITIALIZE":
                self.games += 1
        else:
            self.check("setting" not in p, "%s with setting" % r)
        self.history(p, "talk_history", self.seen_talks)
        self.history(p, "whisper_history", self.seen_whispers)
        if r in ("TALK", "DAILY_FINISH"):
            self.check("talk_history" in p, "%s without talk_history" % r)
        if r == "FINISH":
            self.check(len(info["role_map"]) == len(self.status), "FINISH shows every role")
        if r in ("TALK", "WHISPER"):
            return self.talk(self, p)
        if r in TARGET:
            return self.other()
        return None

    def play(self, until_close=True):
        """Plays until the server closes the connection."""
        try:
            while True:
                p = json.loads(self.ws.recv())
                a = self.handle(p)
                if p["request"] in REPLY:
                    self.ws.send(a)
                elif a is not None:
                    self.errors.append("answered %s" % p["request"])
        except Closed:
            pass
        except (ConnectionError, OSError):
            pass
        self.ws.close()
