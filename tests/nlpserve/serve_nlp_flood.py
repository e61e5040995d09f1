#!/usr/bin/env python3
"""aiwolf serve --nlp under a flood of WebSocket clients that never answer
NAME (python3 standard library only; the server and agents of
serve_nlp.py). Parts, each with its own server:
  flood  --max-connections 8 --max-per-address 6 and a --name-timeout far
         beyond the test: 20 silent clients from 127.0.0.1, then 3 from
         127.0.0.2, each let in (it gets its NAME request) by dropping the
         oldest connection not yet named, of its address when that is full,
         else of all; then five honest agents from 127.0.0.1 get in the same
         way and play their game to the end. The first 14 of the flood are
         closed, and the server counts 20 drops in its log lines.
  raw    --max-connections 8: 8 TCP connections from 127.0.0.3 that send
         nothing (no HTTP request), then five honest agents: each gets in by
         dropping the oldest of those (they are counted when accepted, before
         any handshake), and the game is played to its end.
  full   --max-connections 2 --max-per-address 2: a client that connects and
         goes frees its place; then two honest agents in a
         game (so named): a third connection from 127.0.0.1 is refused at
         the HTTP request (503, the TCP server's line: over
         --max-per-address), one from 127.0.0.2 too (over
         --max-connections); the game goes on to its end.
Nothing here depends on timing: each client waits for what the server sends
(its NAME request, a close, a refusal) before the next connects.
    serve_nlp_flood.py AIWOLF [PART...]"""
import json
import os
import re
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nlpclient  # noqa: E402
import serve_nlp as sn  # noqa: E402  (AIWOLF, Server, the agents' helpers)

LIVE = sn.LIVE
servers = []  # every server started, killed if a part breaks off


def server(name, args):
    s = sn.Server(name, args)
    servers.append(s)
    return s


def seated(port, source):
    """A silent client: connected, asked its NAME, never answering."""
    ws = nlpclient.WS(port, source=source, timeout=LIVE)
    p = json.loads(ws.recv())
    if p.get("request") != "NAME":
        sn.fail("a flood client was sent %r first" % p.get("request"))
    return ws


def refusal(port, source):
    """What a WebSocket request from source gets until the server closes."""
    s = socket.create_connection(("127.0.0.1", port), timeout=LIVE, source_address=(source, 0))
    s.sendall(("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" % port).encode())
    return drain(s).decode("utf-8", "replace")


def drain(s):
    """What socket s reads until the server closes it (or resets it)."""
    out = b""
    try:
        for d in iter(lambda: s.recv(4096), b""):
            out += d
    except OSError:
        pass
    s.close()
    return out


def drops(err):
    """Connections closed before their NAME, as the log lines count them."""
    n = 0
    for line in err.splitlines():
        if "closing a connection before its NAME" not in line:
            continue
        m = re.search(r"(\d+) more since the last such message", line)
        if re.search(r"closing a connection before its NAME: \d+ more since", line):
            n += int(m.group(1))
        else:
            n += 1 + (int(m.group(1)) if m else 0)
    return n


def named(port, team):
    """An honest agent, named: it got its NAME request and answered it."""
    a = nlpclient.Agent(port, team)
    p = json.loads(a.ws.recv())
    if p.get("request") != "NAME":
        sn.fail("an honest agent was sent %r first" % p.get("request"))
    a.handle(p)
    a.ws.send(a.team)
    a.requests = []
    return a


def part_flood():
    s = server("flood", ["--seed", "5", "--max-connections", "8", "--max-per-address", "6",
                            "--name-timeout", "3600000"])
    if "at most 8 connections, 6 from one address" not in s.err():
        sn.fail("flood: the server does not say its limits: " + s.err()[-500:])
    flood = [seated(s.port, "127.0.0.1") for _ in range(20)]
    # 127.0.0.1 holds 6: each past them took the place of its oldest
    for k, ws in enumerate(flood[:14]):
        sn.closed(ws)  # returns only once the server has closed it
    flood += [seated(s.port, "127.0.0.2") for _ in range(3)]  # the 3rd: 8 open, one of 127.0.0.1 goes
    agents = [named(s.port, "honest%d" % k) for k in range(5)]  # each: one of the flood goes
    sn.join(sn.run_agents(agents))
    s.finish("flood", 1)
    sn.check_agents("flood", agents, 1)
    err = s.err()
    if "closing a connection before its NAME: dropped to make room for a new connection " \
       "(over --max-per-address)" not in err:
        sn.fail("flood: no line for a dropped connection: " + err[-1500:])
    if drops(err) != 20:
        sn.fail("flood: %d connections dropped by the log, not 20: %s" % (drops(err), err[-1500:]))
    for ws in flood:
        ws.close()


def part_raw():
    s = server("raw", ["--seed", "5", "--max-connections", "8", "--max-per-address", "100"])
    raw = [socket.create_connection(("127.0.0.1", s.port), timeout=LIVE, source_address=("127.0.0.3", 0))
           for _ in range(8)]
    # the server accepts in order: an agent asked its NAME came after them all
    agents = [named(s.port, "honest%d" % k) for k in range(5)]
    for c in raw[:5]:
        drain(c)  # returns only once the server has closed it
    sn.join(sn.run_agents(agents))
    s.finish("raw", 1)
    sn.check_agents("raw", agents, 1)
    for c in raw[5:]:
        c.close()


def part_full():
    s = server("full", ["--seed", "5", "--max-connections", "2", "--max-per-address", "2",
                           "--time-limit", "600000"] + nlpclient.lua(3, 3))
    # a connection that goes frees its place: once the server has seen it go
    # (its line), both agents fit
    seated(s.port, "127.0.0.2").close()
    until = time.monotonic() + LIVE
    while "before its NAME: the connection was closed" not in s.err() and time.monotonic() < until:
        if sn.dead_server():
            return
        time.sleep(0.02)  # waits for the line; the outcome below decides
    agents = [named(s.port, "honest%d" % k) for k in range(2)]
    for a in agents:  # the game has started: both are named
        p = json.loads(a.ws.recv())
        if p.get("request") != "INITIALIZE":
            sn.fail("full: an agent was sent %r after its NAME" % p.get("request"))
        a.handle(p)
    got = refusal(s.port, "127.0.0.1")
    if " 503 " not in got.split("\r\n")[0] or \
            "aiwolf serve: too many connections from your address; try again later" not in got:
        sn.fail("full: a third connection from one address got %r" % got)
    got = refusal(s.port, "127.0.0.2")
    if " 503 " not in got.split("\r\n")[0] or "aiwolf serve: too many connections; try again later" not in got:
        sn.fail("full: a connection past --max-connections got %r" % got)
    sn.join(sn.run_agents(agents))
    s.finish("full", 1)
    for a in agents:
        for e in a.errors[:5]:
            sn.fail("full: %s saw: %s" % (a.team, e))
        if a.requests.count("FINISH") != 1:
            sn.fail("full: %s did not play to FINISH" % a.team)
    err = s.err()
    for what in ("refusing connections (over --max-per-address): 127.0.0.1 has 2 open",
                 "refusing connections (over --max-connections): 127.0.0.2, 2 connections open"):
        if what not in err:
            sn.fail("full: no line %r: %s" % (what, err[-1500:]))


def main():
    parts = {"flood": part_flood, "raw": part_raw, "full": part_full}
    for name in sys.argv[2:] or list(parts):
        sn.note("part " + name)
        try:
            parts[name]()
        except (nlpclient.Closed, OSError, ValueError) as e:  # a client refused or closed where it must not be
            sn.fail("%s: %s" % (name, e))
        for s in servers:
            if s.p.poll() is None:
                s.p.kill()
                s.p.communicate()
    if sn.failures.count:
        print("serve_nlp_flood: %d failure(s)" % sn.failures.count)
        sys.exit(1)
    print("serve_nlp_flood: all passed")


if __name__ == "__main__":
    main()
