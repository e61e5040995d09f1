"""`aiwolf connect --help` says Ctrl-C exits 0: so does a second Ctrl-C that
comes while it stops. A fake server here accepts and stays silent; connect
is interrupted, stopped (SIGSTOP) once it says it is stopping, sent a second
SIGINT, and let go on: it exits 0, twelve times in twelve."""
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import testtmp  # noqa: E402

BIN = sys.argv[1]
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(16)
port = srv.getsockname()[1]
fails = 0
tmp = testtmp.tmpdir("aiwolf-sigint-")
# In an AddressSanitizer build, LeakSanitizer stops every thread with ptrace
# as the process exits; a SIGSTOP/SIGCONT of ours landing then leaves the
# process in a tracing stop for good. What this test checks is the exit
# status, so the leak check (done by every other test) is off here.
ENV = dict(os.environ)
ENV["ASAN_OPTIONS"] = (ENV.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")


def wait_for(path, text, p, limit=60):
    end = time.time() + limit  # a bound on a hang, not a timing margin
    while time.time() < end:
        if text in open(path).read():
            return True
        if p.poll() is not None:
            return False
        time.sleep(0.01)
    return False


for i in range(12):
    err = os.path.join(tmp, f"err{i}")
    with open(err, "w") as ef:
        p = subprocess.Popen([BIN, "connect", "-p", str(port), "agents/random.lua"], stderr=ef, stdout=subprocess.DEVNULL,
                             env=ENV)
    conn, _ = srv.accept()  # connected: now in its loop
    p.send_signal(signal.SIGINT)
    if wait_for(err, "stopping", p):
        try:
            p.send_signal(signal.SIGSTOP)
            p.send_signal(signal.SIGINT)
            p.send_signal(signal.SIGCONT)
        except ProcessLookupError:
            pass
    try:
        rc = p.wait(timeout=60)  # a bound on a hang, not a timing margin
    except subprocess.TimeoutExpired:
        p.kill()  # never leave it running
        p.wait()
        rc = "none: it did not end within 60 s"
    conn.close()
    if rc != 0:
        fails += 1
        print(f"FAIL: try {i + 1}: exit {rc}: {open(err).read()}")
print("connect_sigint:", "ok" if not fails else f"{fails} of 12 failed")
sys.exit(1 if fails else 0)
