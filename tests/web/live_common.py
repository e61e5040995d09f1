"""Shared by the live and human tests: start `aiwolf play|serve --http 0`,
read the addresses it prints, stop it, check logs with `aiwolf check`.
The temporary folders made here (tmpdir, tests/testtmp.py) go when the
test ends, passed or failed, unless AIWOLF_KEEP_TMP is set; a server still
running then is killed first."""
import atexit
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import testtmp  # noqa: E402

BIN = None
FAILS = []
_SERVERS = []


def _kill_servers():
    for s in _SERVERS:
        if s.p.poll() is None:
            s.p.kill()
            s.p.wait()


atexit.register(_kill_servers)  # registered after testtmp's: runs before its folders go
tmpdir = testtmp.tmpdir


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


def done():
    if FAILS:
        print(f"{len(FAILS)} checks failed", file=sys.stderr)
        sys.exit(1)
    print("ok")
    sys.exit(0)


class Server:
    """aiwolf ARGS... with --http 0 added; .port, .tokens {seat: token}."""

    def __init__(self, args, cwd=None):
        self.dir = tmpdir("aiwolf-live-")
        self.err = open(os.path.join(self.dir, "stderr"), "w+")
        self.out = open(os.path.join(self.dir, "stdout"), "w+")
        self.p = subprocess.Popen([BIN] + args + ["--http", "0"], stdout=self.out, stderr=self.err, cwd=cwd)
        _SERVERS.append(self)
        self.port, self.tokens = None, {}
        for _ in range(500):
            text = open(self.err.name).read()
            m = re.search(r"watch the games at http://127\.0\.0\.1:(\d+)/", text)
            if m:
                self.port = int(m.group(1))
                self.tokens = {int(a): t for a, t in re.findall(r"/human/(\d+)\?token=([0-9a-f]+)", text)}
                break
            if self.p.poll() is not None:
                break
            time.sleep(0.02)
        if not self.port:
            raise RuntimeError("the server printed no address: " + open(self.err.name).read())

    def get(self, path):
        """(status, body) of GET path."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def wait_lingering(self, timeout=120):
        """Until the games are over (the pages stay up)."""
        end = time.time() + timeout
        while time.time() < end:
            if "the games are over" in open(self.err.name).read():
                return True
            if self.p.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            rc = self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        return rc

    def stderr(self):
        return open(self.err.name).read()


def aiwolf_check(path):
    r = subprocess.run([BIN, "check", path], capture_output=True, text=True)
    return r.returncode == 0, r.stdout + r.stderr
