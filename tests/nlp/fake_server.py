#!/usr/bin/env python3
"""A fake NLP-division server for `aiwolf connect --nlp` (standard library
only): it accepts one WebSocket connection on GET /ws, sends the packets of a
fixture game (tests/fixtures/nlp/recorded/*.jsonl.gz, recorded from the
official server, or games/*.jsonl) one message at a time, and
for every request that wants an answer reads the answer and checks that it is
in the form the official server accepts:
  NAME          a non-empty line
  TALK/WHISPER  a non-empty line of valid UTF-8, no control characters, within
                the length rule of the setting (the text before the first
                @mention of another agent within base_length + remain_length,
                the text after it within mention_length), or Skip / Over
  VOTE, DIVINE, GUARD, ATTACK
                the name of an agent of the game (the server's
                FindAgentByName), alive, and for DIVINE and GUARD not the
                agent itself
A talk "$REPLY" in the fixture stands for the agent's own answer at that turn.
The group chat (aiwolf-nlp-common 0.7.0; games/*-chat.jsonl, see
make_games.py): the fake server plays the official one's part
(logic/communication_freeform.go): it numbers the talks of a phase, puts
remain_count in each packet, broadcasts the agent's own talks back at once,
and reads a talk from the agent exactly when `connect --nlp` says it speaks
(docs/nlp.md: at the phase's start, then after its last talk came back and
another agent has spoken since, or every other one has finished; never
after its Over or with no count left), so a talk sent at any other time is
caught: it is read as the answer to a later request, or left over at the
end.
Writes a JSON verdict to --verdict: {"requests", "answers", "bad": [...],
"by_request": {...}}.

Hostile modes (--mode) send something a broken or hostile server could:
garbage (not JSON), binary (a binary frame), huge (a 6 MiB message in
fragments), badutf8 (invalid UTF-8 in a text frame), escape (terminal escapes
in a talk and in the game id), unknown-agent (a vote list naming an agent not
in the game), close (close at once after the handshake), refuse (answer the
handshake with 401), token (401 unless "Authorization: Bearer secret"),
silent (NAME, then nothing until the client goes; VERDICT.connected is
written once NAME is answered).

No wall-clock decides anything: a socket timeout of 120 s only keeps a broken
client from hanging the test forever."""
import argparse
import base64
import gzip
import hashlib
import json
import os
import socket
import ssl
import struct
import sys

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise EOFError("the client closed the connection")
        buf += chunk
    return buf


def handshake(conn, mode):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            raise EOFError("no handshake")
        data += chunk
    head = data.split(b"\r\n\r\n")[0].decode("latin-1").split("\r\n")
    request = head[0]
    headers = {}
    for line in head[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    if mode == "refuse" or (mode == "token" and headers.get("authorization") != "Bearer secret"):
        conn.sendall(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        return None
    if not request.startswith("GET /ws "):
        conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        return None
    key = headers.get("sec-websocket-key", "")
    accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
    conn.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Accept: %s\r\n\r\n" % accept).encode())
    return headers


def send_frame(conn, payload, opcode=1, fin=True):
    b0 = (0x80 if fin else 0) | opcode
    n = len(payload)
    if n < 126:
        hdr = struct.pack("!BB", b0, n)
    elif n < 65536:
        hdr = struct.pack("!BBH", b0, 126, n)
    else:
        hdr = struct.pack("!BBQ", b0, 127, n)
    conn.sendall(hdr + payload)


def send_text(conn, s):
    send_frame(conn, s.encode("utf-8") if isinstance(s, str) else s)


def read_message(conn):
    """One whole text message from the client (masked frames), answering
    pings; None when the client closes."""
    parts = []
    while True:
        b0, b1 = recv_exact(conn, 2)
        op, fin, masked, n = b0 & 0x0F, b0 & 0x80, b1 & 0x80, b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", recv_exact(conn, 2))[0]
        elif n == 127:
            n = struct.unpack("!Q", recv_exact(conn, 8))[0]
        mask = recv_exact(conn, 4) if masked else b"\0\0\0\0"
        data = bytearray(recv_exact(conn, n))
        for i in range(n):
            data[i] ^= mask[i % 4]
        if not masked:
            raise ValueError("a client frame without a mask")
        if op == 8:
            return None
        if op == 9:
            send_frame(conn, bytes(data), opcode=10)
            continue
        if op == 10:
            continue
        parts.append(bytes(data))
        if fin:
            return b"".join(parts)


def close(conn):
    """Closes; returns the messages the client still sent."""
    extra = []
    try:
        send_frame(conn, struct.pack("!H", 1000), opcode=8)
        while True:
            m = read_message(conn)
            if m is None:
                break
            extra.append(m)
    except (OSError, EOFError, ValueError):
        pass
    return extra


def length(text, spaces=False):
    """The server's CountLength, characters not counting white space."""
    return len(text) if spaces else len("".join(text.split()))


def check_answer(req, ans, packet, names, me, setting, bad):
    try:
        text = ans.decode("utf-8")
    except UnicodeDecodeError:
        bad.append("%s: not UTF-8" % req)
        return None
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in text):
        bad.append("%s: a control character in %r" % (req, text))
    if req == "NAME":
        if not text:
            bad.append("NAME: empty")
    elif req in ("TALK", "WHISPER"):
        if not text:
            bad.append("%s: empty" % req)
        if text in ("Skip", "Over"):
            return text
        ts = setting[req.lower()]["max_length"]
        base, mention_len = ts.get("base_length"), ts.get("mention_length")
        remain = packet["info"].get("remain_length") or 0
        first = None
        for a in names:
            if a != me and ("@" + a) in text:
                i = text.index("@" + a)
                if first is None or i < first[0]:
                    first = (i, a)
        before = text if first is None else text[:first[0]]
        after = "" if first is None else text[first[0] + 1 + len(first[1]):]
        if base is not None and length(before) > base + remain:
            bad.append("%s: %d characters before any mention (at most %d): %r" % (req, length(before), base + remain, text))
        if mention_len is not None and length(after) > mention_len + remain:
            bad.append("%s: %d characters after the mention (at most %d)" % (req, length(after), mention_len))
    else:
        status = packet["info"]["status_map"]
        if text not in names:
            bad.append("%s: %r is not an agent of the game" % (req, text))
        elif status.get(text) != "ALIVE":
            bad.append("%s: %r is not alive" % (req, text))
        elif req in ("DIVINE", "GUARD") and text == me:
            bad.append("%s: the agent itself" % req)
    return text


WANTS = {"NAME", "TALK", "WHISPER", "VOTE", "DIVINE", "GUARD", "ATTACK"}


class Chat:
    """A group-chat phase as the official server runs it, for one agent."""

    def __init__(self, kind, packet, me, setting, day_list):
        info = packet["info"]
        self.kind, self.me, self.day_list = kind, me, day_list
        self.per_agent = setting[kind.lower()]["max_count"]["per_agent"]
        self.others = {a for a, st in info["status_map"].items()
                       if st == "ALIVE" and a != me and (kind == "TALK" or info["role_map"].get(a) == "WEREWOLF")}
        self.count, self.done = {}, set()
        self.accepted, self.heard, self.me_done = 0, True, False

    def remain(self):
        return self.per_agent - self.accepted

    def stamp(self, p):
        p["info"]["remain_count"] = self.remain()

    def broadcast(self, t):
        t["idx"] = len(self.day_list)
        self.day_list.append(dict(t))

    def heard_from(self, t):
        if t["agent"] == self.me:
            return
        self.heard = True
        self.count[t["agent"]] = self.count.get(t["agent"], 0) + 1
        if self.count[t["agent"]] >= self.per_agent or t["over"]:
            self.done.add(t["agent"])

    def speaks(self):
        return not self.me_done and self.remain() > 0 and (self.heard or not (self.others - self.done))


def chat_turns(conn, chat, p, names, setting, verdict):
    """The agent's talks while it speaks, each broadcast back at once."""
    bad, by_request = verdict["bad"], verdict["by_request"]
    key = "new_talk" if chat.kind == "TALK" else "new_whisper"
    while chat.speaks():
        ans = read_message(conn)
        if ans is None:
            bad.append("%s phase: the client closed instead of talking" % chat.kind)
            return
        verdict["answers"] += 1
        verdict["chat_answers"] += 1
        by_request.setdefault(chat.kind, []).append(ans.decode("utf-8", "replace"))
        text = check_answer(chat.kind, ans, p, names, chat.me, setting, bad) or ""
        if text.startswith("heard ") and text != "heard %d" % len(chat.day_list):
            # tests/nlp/listener.lua: what it had heard when it spoke
            bad.append("%s: %r when %d were broadcast" % (chat.kind, text, len(chat.day_list)))
        chat.accepted += 1
        chat.heard = False
        if text == "Over":
            chat.me_done = True
        t = {"idx": 0, "day": p["info"]["day"], "turn": chat.accepted - 1, "agent": chat.me, "text": text,
             "skip": text == "Skip", "over": text == "Over", "time": 1767225600000 + verdict["answers"]}
        chat.broadcast(t)
        echo = {"request": chat.kind + "_BROADCAST", "info": dict(p["info"], remain_count=chat.remain()), key: t}
        send_text(conn, json.dumps(echo, ensure_ascii=False, separators=(",", ":")))
        verdict["requests"] += 1


def play(conn, packets, verdict):
    setting = None
    names, me = [], None
    last_reply = None
    bad, by_request = verdict["bad"], verdict["by_request"]
    chat, day = None, {"TALK": [], "WHISPER": []}
    for p in packets:
        req = p["request"]
        if "setting" in p:
            setting = p["setting"]
        if "info" in p:
            names = list(p["info"]["status_map"].keys())
            me = p["info"]["agent"]
        if req == "DAILY_INITIALIZE":
            day = {"TALK": [], "WHISPER": []}
        for key, kind in (("talk_history", "TALK"), ("whisper_history", "WHISPER")):
            if p.get(key) == "$DAY":
                p[key] = [dict(t) for t in day[kind]]
            for t in p.get(key, []):
                if t["text"] == "$REPLY":
                    t["text"] = last_reply if last_reply is not None else "Over"
        kind = req.split("_")[0]
        if req.endswith("_PHASE_START"):
            chat = Chat(kind, p, me, setting, day[kind])
        if req.endswith("_BROADCAST") and chat:
            chat.broadcast(p["new_talk" if kind == "TALK" else "new_whisper"])
        if chat and req.startswith(chat.kind + "_"):
            chat.stamp(p)
        send_text(conn, json.dumps(p, ensure_ascii=False, separators=(",", ":")))
        verdict["requests"] += 1
        if req.endswith("_BROADCAST") and chat:
            chat.heard_from(p["new_talk" if kind == "TALK" else "new_whisper"])
        if req.endswith("_PHASE_END"):
            chat = None
        if chat and (req.endswith("_PHASE_START") or req.endswith("_BROADCAST")):
            chat_turns(conn, chat, p, names, setting, verdict)
        if req in WANTS:
            ans = read_message(conn)
            if ans is None:
                bad.append("%s: the client closed instead of answering" % req)
                return
            verdict["answers"] += 1
            by_request.setdefault(req, []).append(ans.decode("utf-8", "replace"))
            text = check_answer(req, ans, p, names, me, setting, bad)
            if req in ("TALK", "WHISPER"):
                last_reply = text


def hostile(conn, mode, packets):
    first = [p for p in packets if p["request"] in ("NAME", "INITIALIZE")]
    if mode == "close":
        return
    if mode == "garbage":
        send_text(conn, "this is not JSON {")
    elif mode == "binary":
        send_frame(conn, b"\x00\x01\x02", opcode=2)
    elif mode == "huge":
        chunk = b"x" * (1 << 20)
        send_frame(conn, b'{"request":"NAME","pad":"', opcode=1, fin=False)
        for _ in range(6):
            send_frame(conn, chunk, opcode=0, fin=False)
        send_frame(conn, b'"}', opcode=0, fin=True)
    elif mode == "badutf8":
        send_text(conn, b'{"request":"NAME","x":"\xff\xfe\x1b[2J"}')
    elif mode in ("escape", "unknown-agent"):
        send_text(conn, json.dumps(first[0]))
        read_message(conn)
        init = json.loads(json.dumps(first[1]))
        init["info"]["game_id"] = "\x1b]0;pwned\x07\x1b[2J"
        send_text(conn, json.dumps(init))
        talk = {"request": "TALK", "info": dict(init["info"], day=0, remain_count=4),
                "talk_history": [{"idx": 0, "day": 0, "turn": 0, "agent": list(init["info"]["status_map"])[1],
                                  "text": "\x1b[31mred\x1b[0m \x07 bell\u202e", "skip": False, "over": False}]}
        if mode == "unknown-agent":
            talk["info"]["vote_list"] = [{"day": 0, "agent": "Nobody", "target": "Ghost"}]
            talk["talk_history"][0]["agent"] = "Stranger"
        send_text(conn, json.dumps(talk))
        ans = read_message(conn)
        return ans
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fixture")
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--verdict", required=True)
    ap.add_argument("--mode", default="play")
    ap.add_argument("--connections", type=int, default=1)
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve wss:// with this certificate")
    a = ap.parse_args()
    packets = []
    if a.fixture:
        opener = gzip.open if a.fixture.endswith(".gz") else open
        with opener(a.fixture, "rt", encoding="utf-8") as f:
            packets = [json.loads(line) for line in f if line.strip()]
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.getsockname()[1]))
    os.rename(tmp, a.port_file)
    verdict = {"requests": 0, "answers": 0, "chat_answers": 0, "bad": [], "by_request": {}, "connections": 0,
               "headers": []}
    for _ in range(a.connections):
        conn, _ = srv.accept()
        conn.settimeout(120)
        try:
            if a.tls:
                ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                ctx.load_cert_chain(a.tls[0], a.tls[1])
                conn = ctx.wrap_socket(conn, server_side=True)
            headers = handshake(conn, a.mode)
            if headers is None:
                verdict["refused"] = True
                conn.close()
                continue
            verdict["connections"] += 1
            verdict["headers"].append(headers.get("authorization", ""))
            if a.mode == "silent":
                # NAME, and once it is answered (the client is surely in)
                # nothing more: wait for the client to go (Ctrl-C on it)
                send_text(conn, '{"request":"NAME"}')
                read_message(conn)
                with open(a.verdict + ".connected", "a") as f:
                    f.write("1\n")
                try:
                    while read_message(conn) is not None:
                        pass
                except (OSError, EOFError, ValueError):
                    pass
                continue
            if a.mode in ("play", "token"):
                play(conn, json.loads(json.dumps(packets)), verdict)
                for m in close(conn):
                    verdict["bad"].append("a message nobody asked for: %r" % m.decode("utf-8", "replace")[:80])
            else:
                ans = hostile(conn, a.mode, packets)
                if ans is not None:
                    verdict["hostile_answer"] = ans.decode("utf-8", "replace")
                close(conn)
        except (OSError, EOFError, ValueError, ssl.SSLError) as e:
            verdict["bad"].append("connection: %s" % e)
        finally:
            conn.close()
    with open(a.verdict, "w", encoding="utf-8") as f:
        json.dump(verdict, f, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
