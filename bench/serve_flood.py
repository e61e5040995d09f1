#!/usr/bin/env python3
"""serve_flood: games an honest client plays on `aiwolf serve` during a
connection flood (issue 23), and what the flood costs the server.

The server: 5 players, seats 2 to 5 local Lua agents (so each game has one
remote seat), --parallel 2, --time-limit 1000, its descriptor limit set to
1,024 (ulimit -n). First the flood: 1,100 connections that answer NAME and
then stay silent (in a game every request to them times out); a connection
the server closes or refuses is opened again a second later. Then two
honest clients (aiwolf connect, agents/random.lua, named honest1 and
honest2) from 127.0.0.1. After SECS seconds: the games whose log names an
honest client, the games in all, and the server's peak RSS (VmHWM from
/proc/PID/status) and most descriptors (/proc/PID/fd, sampled every 0.2 s).

    bench/serve_flood.py AIWOLF [SECS [FLOOD_ADDR [SERVE_OPTION...]]]

FLOOD_ADDR is where the flood comes from (default 127.0.0.2, another
address than the honest clients'; 127.0.0.1 for the same one)."""
import glob
import os
import re
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time

aiwolf = sys.argv[1]
secs = float(sys.argv[2]) if len(sys.argv) > 2 else 30
flood_addr = sys.argv[3] if len(sys.argv) > 3 else "127.0.0.2"
extra = sys.argv[4:]
FLOOD = 1100

hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (min(8192, hard), hard))
tmp = tempfile.mkdtemp(prefix="serve_flood.")
logs = os.path.join(tmp, "logs")


def low():
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))


serve = subprocess.Popen([aiwolf, "serve", "-p", "0", "-n", "5", "--games", "100000", "--parallel", "2", "--seed", "1",
                          "--time-limit", "1000", "--log-dir", logs, "--agent", "2=agents/random.lua",
                          "--agent", "3=agents/sample.lua", "--agent", "4=agents/random.lua",
                          "--agent", "5=agents/sample.lua"] + extra,
                         stdout=subprocess.PIPE, stderr=open(os.path.join(tmp, "serve.err"), "w"), text=True,
                         preexec_fn=low)
port = int(re.match(r"listening on port (\d+)", serve.stdout.readline()).group(1))

sel = selectors.DefaultSelector()
conns = {}
reopen = []  # (when, n)
opened = closed = 0


def open_one(i):
    global opened
    s = socket.socket()
    s.bind((flood_addr, 0))
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    except OSError:
        s.close()
        reopen.append((time.time() + 1, i))
        return
    opened += 1
    conns[s.fileno()] = (s, i)
    sel.register(s, selectors.EVENT_READ, (s, i))


def turn(timeout):
    global closed
    for key, _ in sel.select(timeout=timeout):
        s, i = key.data
        try:
            d = s.recv(65536)
        except OSError:
            d = b""
        if not d:
            sel.unregister(s)
            s.close()
            closed += 1
            reopen.append((time.time() + 1, i))
        elif b'"NAME"' in d:
            try:
                s.send(b"flood%d\n" % i)
            except OSError:
                pass
    now = time.time()
    for w in [w for w in reopen if w[0] <= now]:
        reopen.remove(w)
        open_one(w[1])


def sample(st):
    try:
        st["fds"] = max(st["fds"], len(os.listdir("/proc/%d/fd" % serve.pid)))
        with open("/proc/%d/status" % serve.pid) as f:
            st["hwm"] = int(re.search(r"VmHWM:\s+(\d+)", f.read()).group(1))
    except (OSError, AttributeError):
        pass


st = {"fds": 0, "hwm": 0}
for i in range(FLOOD):  # 100 at a time waiting for the server's first packet
    open_one(i)
    if i % 100 == 99:
        end = time.time() + 2
        while time.time() < end:
            turn(0.05)
sample(st)
honest = [subprocess.Popen([aiwolf, "connect", "-p", str(port), "-n", "honest%d" % k, "--quiet", "agents/random.lua"],
                           stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "honest%d.err" % k), "w"))
          for k in (1, 2)]
t0 = time.time()
while time.time() - t0 < secs:
    turn(0.2)
    sample(st)
serve.send_signal(signal.SIGINT)
try:
    serve.wait(timeout=60)
except subprocess.TimeoutExpired:
    serve.kill()
    serve.wait()
for h in honest:
    try:
        h.wait(timeout=30)
    except subprocess.TimeoutExpired:
        h.kill()
        h.wait()
games = sorted(glob.glob(os.path.join(logs, "*.log")))
mine = 0
for g in games:
    with open(g, errors="replace") as f:
        if re.search(r"^0,status,\d+,\w+,\w+,honest[12]$", f.read(), re.M):
            mine += 1
err = open(os.path.join(tmp, "serve.err"), errors="replace").read()
print("%s: flood of %d from %s, %.0f s: %d games with an honest client, %d games in all; "
      "serve peak RSS %.1f MB, at most %d descriptors; flood connections opened %d, closed by the server %d; "
      "serve log %d lines (%d about refusals); files in %s" %
      (aiwolf, FLOOD, flood_addr, secs, mine, len(games), st["hwm"] / 1024, st["fds"], opened, closed,
       err.count("\n"), err.count("refusing connections"), tmp))
for s, _ in conns.values():
    s.close()
