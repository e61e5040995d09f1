#!/usr/bin/env python3
"""Stress, not in ctest (minutes, and its signal is load-dependent):
SIGINT/SIGTERM to `aiwolf view DIR` while three clients keep asking for a
large game (pipelined) and up to 40 others hold slow or unfinished
requests; each stop must end within 15 s. Under ASan a 30 MB log takes
~4 s to convert on the web's loop; before the web answered 503 to requests
once a stop was asked, 9 of 20 stops waited past 15 s for queued
conversions (the "hang after SIGINT"); after, 0 of 10.
    redteam_sigstop.py AIWOLF DIR ITERATIONS [TERM]
DIR should hold a large game first (e.g. a log with one 30 MB talk line)."""
import re, signal, socket, subprocess, sys, time, random, threading
aiwolf = sys.argv[1]; N=int(sys.argv[3]); sig = signal.SIGTERM if len(sys.argv)>4 and sys.argv[4]=="TERM" else signal.SIGINT
hangs=0
for it in range(N):
    proc = subprocess.Popen([aiwolf, "view", sys.argv[2]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    PORT = int(re.search(r":(\d+)/", proc.stdout.readline()).group(1))
    socks=[]; stop=False
    def hammer():
        while not stop:
            try:
                s=socket.create_connection(("127.0.0.1", PORT), timeout=1)
                s.sendall(b"GET /api/game/0 HTTP/1.1\r\nHost: x\r\n\r\n"*3)
                s.recv(1000); s.close()
            except OSError: pass
    ths=[threading.Thread(target=hammer) for _ in range(3)]
    for t in ths: t.start()
    for i in range(random.randint(0,40)):
        try:
            s=socket.create_connection(("127.0.0.1", PORT), timeout=1)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
            k=random.randint(0,3)
            if k==0: s.sendall(b"GET /api/game/0 HTTP/1.1\r\nHost: x\r\n\r\n"*4)
            elif k==1: s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            elif k==2: s.sendall(b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            socks.append(s)
        except OSError: pass
    time.sleep(random.random()*0.5)
    proc.send_signal(sig)
    try:
        o,e=proc.communicate(timeout=15)
        if proc.returncode!=0 or "ERROR: AddressSanitizer" in e or "runtime error" in e:
            print("it %d: rc %d %s" % (it, proc.returncode, e[-1500:]))
    except subprocess.TimeoutExpired:
        hangs+=1; print("it %d: HANG pid %d" % (it, proc.pid), flush=True)
        pass
        proc.kill(); proc.communicate()
    stop=True
    for t in ths: t.join()
    for s in socks: s.close()
print("iterations", N, "hangs", hangs)
