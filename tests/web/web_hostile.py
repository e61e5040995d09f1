#!/usr/bin/env python3
"""Hostile HTTP and WebSocket clients against `aiwolf view`: malformed
request lines, huge headers, path traversal (plain and encoded), bad
WebSocket handshakes and frames, a client that never finishes its request,
clients that never read a large answer, more connections than the limit.
After each, the server must still answer a normal request; at the end it
must stop on SIGINT with status 0 (under ASan too: any report fails it).
    web_hostile.py AIWOLF"""
import os
import re
import signal
import socket
import subprocess
import sys
import time

aiwolf = sys.argv[1]
LOG = "tests/fixtures/official/direct/15p/game000.log"
fails = 0


def fail(what):
    global fails
    fails += 1
    print("web_hostile: FAIL " + what)


proc = subprocess.Popen([aiwolf, "view", LOG], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = proc.stdout.readline()
m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
if not m:
    print("web_hostile: aiwolf view did not start: " + line + proc.stderr.read())
    sys.exit(1)
PORT = int(m.group(1))


def conn(timeout=5):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    return s


def raw(data, timeout=5):
    """Sends data, returns what comes back until the server closes or goes quiet."""
    s = conn(timeout)
    try:
        s.sendall(data)
    except OSError:
        pass
    out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except OSError:
        pass
    s.close()
    return out


def get(path, timeout=5):
    out = raw(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode(), timeout)
    status = int(out[9:12]) if out.startswith(b"HTTP/1.1 ") else None
    return status, out.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in out else b""


def still_ok(what, within=0, wait=5):
    """The server still answers; within: seconds it may take to get there
    (the closes of many connections are the server's to notice, later under
    the sanitizers on a loaded machine); wait: seconds one request may take
    (a hang guard, not a measure)."""
    end = time.time() + within
    while True:
        st, err = None, None
        try:
            st, body = get("/api/games", wait)
            if st == 200 and b'"games"' in body:
                break
        except OSError as e:
            err = e
        if time.time() >= end:
            fail("after %s: %s" % (what, err if err else "/api/games gave %s" % st))
            break
        time.sleep(0.2)
    if proc.poll() is not None:
        fail("after %s: the server exited (%s): %s" % (what, proc.returncode, proc.stderr.read()))
        sys.exit(1)


# 1. malformed request lines and headers (a GET with a bad body header may
# be answered: its request line is fine; the rest must get an error or a close)
for data in [b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
             b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"]:
    raw(data)
    still_ok("request %r" % data[:40])
for data in [b"GARBAGE\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"\x00\x01\x02\xff\r\n\r\n",
             b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\n\r\n",
             b"GET / HTTP/1.1\r\n" + b"X-Big: " + b"b" * 200000 + b"\r\n\r\n",
             b"GET / HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(5000)) + b"\r\n",
             b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"]:
    out = raw(data)
    if out.startswith(b"HTTP/1.1 200"):
        fail("malformed request %r... answered 200" % data[:30])
    still_ok("malformed request %r" % data[:30])

# 2. no file outside the given ones, however the path is spelled
for path in ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/static/../../../etc/passwd",
             "/static/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/static/..%2f..%2f..%2fetc/passwd",
             "/api/game/../../../etc/passwd", "/api/game/-1", "/api/game/1", "/api/game/99999999999999999999",
             "/api/game/0x0", "/api/game/%00", "//etc/passwd", "/static//etc/passwd", "/report",
             "/static/viewer.html/../../../../etc/passwd", "/" + LOG]:
    st, body = get(path)
    if st == 200 or b"root:" in body:
        fail("%s: answered %s" % (path, st))
st, body = get("/api/game/0")
if st != 200 or b'"events"' not in body:
    fail("/api/game/0: %s" % st)
still_ok("traversal")

# 3. WebSocket: no channel here, bad handshakes, a frame on a plain request
for data in [b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
             b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
             b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
             b"Sec-WebSocket-Key: !!!\r\nSec-WebSocket-Version: 99\r\n\r\n",
             b"\x81\xff" + b"\x7f" * 8 + b"\x00" * 4 + b"x" * 1000]:
    out = raw(data)
    if out.startswith(b"HTTP/1.1 101"):
        fail("websocket %r...: accepted" % data[:40])
    still_ok("websocket %r" % data[:30])

def still_open(s):
    """The server has neither answered nor closed s (it would read b"" or
    data at once): nothing waits."""
    s.setblocking(False)
    try:
        s.recv(1, socket.MSG_PEEK)
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        s.settimeout(5)


# 4. a client that never finishes its request, others meanwhile: answered
# while the slow one is still held (not once the server's own timeout for
# an unfinished request has dropped it); no deadline of the test's
slow = conn()
slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
still_ok("a request never finished", wait=120)
if not still_open(slow):
    fail("a slow client delayed another: answered only once the slow one was dropped")

# 4b. many clients that never finish their request (more than lws's pool of
# header buffers was once: 32 such clients made every other wait for the
# 10 s timeout); a normal request still goes through at once
slows = []
for _ in range(64):
    s = conn()
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    slows.append(s)
still_ok("64 requests never finished", wait=120)
if not all(still_open(s) for s in slows):
    fail("64 slow clients delayed another: answered only once slow ones were dropped")
for s in slows:
    s.close()

# 5. clients that ask for a large answer and never read it
hogs = []
for _ in range(20):
    s = conn()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.sendall(b"GET /api/game/0 HTTP/1.1\r\nHost: x\r\n\r\n" * 5)
    hogs.append(s)
# answered while they never read (a server that waited on them never
# would); how soon is no test's business: their requests are served first,
# and under the sanitizers on a loaded machine that takes seconds
still_ok("clients that never read", wait=120)

# 6. more connections than the limit (256), then they go
many = []
for _ in range(400):
    try:
        many.append(conn(2))
    except OSError:
        break
for s in many:
    s.close()
for s in hogs:
    s.close()
slow.close()
still_ok("400 connections", within=15)

# 7. Ctrl-C stops it cleanly
proc.send_signal(signal.SIGINT)
try:
    rest, err = proc.communicate(timeout=20)
except subprocess.TimeoutExpired:
    proc.kill()
    rest, err = proc.communicate()
    fail("did not stop within 20 s of SIGINT")
if proc.returncode != 0 or "stopped" not in rest:
    fail("stop: status %s, output %r, errors %r" % (proc.returncode, rest, err[-2000:]))
if "ERROR: AddressSanitizer" in err or "runtime error" in err:
    fail("sanitizer report:\n" + err[-4000:])
print("web_hostile: %s" % ("ok" if not fails else "%d failure(s)" % fails))
sys.exit(1 if fails else 0)
