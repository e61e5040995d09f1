#!/usr/bin/env python3
"""Our two sides of the NLP division together: `aiwolf serve --nlp` hosts a
5-player English game and a 13-player Japanese one, each seat an `aiwolf
connect --nlp` client (agents/sample.lua, agents/random.lua, the agent of
`aiwolf new --nlp`, tests/nlp/freetext.lua, tests/nlp/listener.lua, which
checks that the character's profile comes), turn by turn and as
aiwolf-nlp-common 0.7.0's group chat (--set talk_duration, whisper_duration). Every game ends with no agent
fault, its log checks legal, and every client exits 0 having played its
game. The clients use --reconnect, so it does not matter whether they start
before the server listens; each is stopped with Ctrl-C once the server is
done (no wall-clock decides anything; 300 s bounds a broken run, and no
process is left behind).

usage: connect_serve.py AIWOLF"""
import glob
import os
import signal
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import testtmp  # noqa: E402

AIWOLF = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
failures = []
tmp = testtmp.tmpdir("aiwolf_connect_serve.")
subprocess.run([AIWOLF, "new", "--nlp", "--dir", tmp, "nlpagent"], check=True, capture_output=True)
AGENTS = ["agents/sample.lua", "agents/random.lua", os.path.join(tmp, "nlpagent", "main.lua"),
          os.path.join(HERE, "freetext.lua")]


CHAT = ["--set", "talk_duration=60000", "--set", "whisper_duration=60000"]
for preset, n, sets in (("nlp-en", 5, []), ("nlp13", 13, []), ("nlp-en", 5, CHAT), ("nlp13", 13, CHAT)):
    agents = AGENTS + [os.path.join(HERE, "listener.lua")]  # it checks that the profile comes
    preset_ = preset + (" (group chat)" if sets else "")
    logs = os.path.join(tmp, preset + ("-chat" if sets else ""))
    # Port 0: the server takes a free port and says which; nothing can take it between.
    srv = subprocess.Popen([AIWOLF, "serve", "--nlp", "--preset", preset, "-p", "0", "--games", "1",
                            "--log-dir", logs] + sets, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = srv.stdout.readline()
    m = re.search(rb"listening on port (\d+)", first)
    if not m:
        srv.kill()
        out, err = srv.communicate()
        failures.append("%s: serve did not start: %r %r" % (preset_, first, err[-600:]))
        continue
    port = int(m.group(1))
    clients = [subprocess.Popen([AIWOLF, "connect", "--nlp", "ws://127.0.0.1:%d/ws" % port, "--reconnect",
                                 "--team", "lua%d" % i, agents[i % len(agents)]],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(n)]
    try:
        out, err = srv.communicate(timeout=300)
        out = first + out
    except subprocess.TimeoutExpired:
        srv.kill()
        out, err = srv.communicate()
        failures.append("%s: serve did not end" % preset_)
    for c in clients:
        c.send_signal(signal.SIGINT)
    for i, c in enumerate(clients):
        try:
            cout, cerr = c.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            c.kill()
            cout, cerr = c.communicate()
        if c.returncode != 0 or b"1 game played" not in cerr or b"the agent's" in cerr or \
                (b"in group chats" in cerr) != bool(sets):
            failures.append("%s: client %d: exit %d: %s" % (preset_, i, c.returncode, cerr[-300:]))
    text = (out + err).decode(errors="replace")
    if srv.returncode != 0 or "agent faults (errors, time-outs, bad replies): 0" not in text:
        failures.append("%s: serve exit %d: %s" % (preset_, srv.returncode, text[-600:]))
    games = glob.glob(os.path.join(logs, "*.log"))
    if len(games) != 1:
        failures.append("%s: %d logs" % (preset_, len(games)))
    for g in games:
        r = subprocess.run([AIWOLF, "check", g], capture_output=True, text=True)
        if r.returncode != 0 or "legal" not in r.stdout:
            failures.append("%s: %s: %s" % (preset_, g, r.stdout + r.stderr))

for f in failures:
    print("FAIL:", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
