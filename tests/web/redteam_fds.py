#!/usr/bin/env python3
"""aiwolf view out of file descriptors: with a low limit (ulimit -n 40) and
more connections than it can take, the server must not spin on its
listening socket (accept failing with EMFILE, the socket still readable):
its CPU time over 2 s stays well below what a busy loop burns (about 2 s).
Connections beyond the limit are closed; once they go, requests are
answered again and Ctrl-C still stops it.
    redteam_fds.py AIWOLF"""
import os
import re
import resource
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
    print("redteam_fds: FAIL " + what)


def low_limit():
    resource.setrlimit(resource.RLIMIT_NOFILE, (40, 40))


proc = subprocess.Popen([aiwolf, "view", LOG], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                        preexec_fn=low_limit)
m = re.search(r"http://127\.0\.0\.1:(\d+)/", proc.stdout.readline())
if not m:
    print("redteam_fds: aiwolf view did not start: " + proc.stderr.read())
    sys.exit(1)
PORT = int(m.group(1))


def cpu_s():
    f = open("/proc/%d/stat" % proc.pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def get_ok():
    try:
        s = socket.create_connection(("127.0.0.1", PORT), timeout=3)
        s.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        out = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
        s.close()
        return out.startswith(b"HTTP/1.1 200")
    except OSError:
        return False


held = []
for _ in range(80):
    try:
        held.append(socket.create_connection(("127.0.0.1", PORT), timeout=2))
    except OSError:
        break
time.sleep(0.3)
c0 = cpu_s()
time.sleep(2)
used = cpu_s() - c0
print("redteam_fds: %d connections held, server CPU %.2f s in 2 s" % (len(held), used))
if used > 0.5:
    fail("out of descriptors, the server spins: %.2f s of CPU in 2 s" % used)
for s in held:
    s.close()
time.sleep(0.5)
if not get_ok():
    fail("no answer once the connections went")
proc.send_signal(signal.SIGINT)
try:
    out, err = proc.communicate(timeout=20)
except subprocess.TimeoutExpired:
    proc.kill()
    out, err = proc.communicate()
    fail("did not stop within 20 s of SIGINT")
if proc.returncode != 0:
    fail("stop: status %s: %s" % (proc.returncode, err[-2000:]))
if "ERROR: AddressSanitizer" in err or "runtime error" in err:
    fail("sanitizer report:\n" + err[-4000:])
print("redteam_fds: %s" % ("ok" if not fails else "%d failure(s)" % fails))
sys.exit(1 if fails else 0)
