"""The live page as `aiwolf view` shows a game: talks as sentences (English
or Japanese, the protocol text once beside them), one day at a time with
day navigation, roles revealed at the end; a long or hostile name (an
agent's own, up to the 64 bytes the game keeps, and a 200-character one fed
to the page) never widens the page, hides the header or puts the players'
table over the day's log, at 1,280 and at 390 pixels wide. `play --http
--pace MS` holds each public line MS ms: at a minute a line the game is
still on its first lines when the page shows them, and Ctrl-C still ends it
at once. A second argument, a folder: screenshots there."""
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import live_common as C  # noqa: E402
from webclient import Chromium  # noqa: E402

C.BIN = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else None
HOSTILE = '<img src=x onerror="document.title=1">' + "W" * 30
named = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"live_layout_{os.getpid()}.lua")
with open(named, "w") as f:
    text = open("agents/sample.lua").read()
    end = text.rindex("return S")
    f.write(text[:end] + "function S:getName() return %r end\nreturn S\n" % HOSTILE)

LAYOUT = """(() => {
  const r = (q) => document.querySelector(q).getBoundingClientRect();
  const h = r('header'), a = r('#game aside'), l = r('#log');
  return { over: document.documentElement.scrollWidth - window.innerWidth,
           header: h.top >= 0 && h.height > 0 && h.width >= window.innerWidth - 1,
           side: a.right <= l.left + 1, stacked: a.bottom <= l.top + 1, title: document.title };
})()"""


def check_layout(b, width, what):
    b.call("Emulation.setDeviceMetricsOverride", width=width, height=844, deviceScaleFactor=1, mobile=width < 500)
    b.wait("true", 5)
    for where in ("top", "bottom"):
        b.eval("window.scrollTo(0, %s)" % ("0" if where == "top" else "document.body.scrollHeight"))
        L = b.eval(LAYOUT)
        C.check(L["over"] <= 0, f"{what} at {width}px ({where}): the page is {L['over']}px wider than the window")
        C.check(L["header"], f"{what} at {width}px ({where}): the header bar is not shown")
        C.check(L["side"] if width > 800 else L["stacked"], f"{what} at {width}px: the players' table overlaps the log: {L}")
        C.check(L["title"] != "1", f"{what}: a name ran as HTML")
    if shots:
        b.screenshot(os.path.join(shots, f"live-{what.replace(' ', '-')}-{width}.png"))


s = C.Server(["play", "--players", "5", "--seed", "3", "--quiet", "--pace", "60000", named, "agents/random.lua"])
b = None
try:
    b = Chromium(1280, 844)
    b.open(f"http://127.0.0.1:{s.port}/live/1")
    # paced: the first lines come, then the game waits a minute a line
    C.check(b.wait("document.querySelectorAll('#agents tbody tr').length === 5 && "
                   "document.querySelectorAll('#log .day').length > 0", 60), "the game's first lines are shown")
    C.check(b.eval("!window.awLive.state().over"), "--pace 60000: the game is still on at its first lines")
    C.check(b.eval(f"[...document.querySelectorAll('#agents td')].some(td => td.textContent.startsWith({HOSTILE[:20]!r}))"),
            "the hostile name is shown as text")
    check_layout(b, 1280, "hostile name")
    check_layout(b, 390, "hostile name")
    s.p.send_signal(signal.SIGINT)
    try:
        C.check(s.p.wait(timeout=120) == 0, "Ctrl-C during a --pace pause: exit 0")
    except subprocess.TimeoutExpired:
        C.check(False, "Ctrl-C did not end a --pace pause")
        s.p.kill()

    # every line the server sent is in (the socket closed after them)
    C.check(b.wait("document.querySelector('#status').textContent !== 'live'", 60), "the page saw the server go")
    # A whole game fed to the page: a 200-character name, talks, two days.
    long_name = "N" * 100 + "<b>x</b>" + "M" * 92
    feed = [
        {"game": 9, "event": "begin", "preset": "aiwolf", "players": 5,
         "agents": [{"agent": a, "name": long_name if a == 1 else f"p{a}"} for a in range(1, 6)]},
        {"game": 9, "day": 0, "event": "talk", "idx": 0, "turn": 0, "agent": 1, "text": "Over"},
        {"game": 9, "day": 1, "event": "talk", "idx": 0, "turn": 0, "agent": 2, "text": "VOTE Agent[03]",
         "en": "I will vote for Agent[03].", "ja": "Agent[03]に投票する"},
        {"game": 9, "day": 1, "event": "talk", "idx": 1, "turn": 0, "agent": 1, "text": "VOTE Agent[02]"},
        {"game": 9, "day": 1, "event": "vote", "agent": 1, "target": 2, "round": 1},
        {"game": 9, "day": 2, "event": "talk", "idx": 0, "turn": 0, "agent": 3, "text": "Over"},
    ]
    for e in feed:
        b.eval("window.awLive.feed(%s)" % __import__("json").dumps(e))
    b.wait("document.querySelectorAll('#log .day').length === 3", 10)
    check_layout(b, 1280, "200-character name")
    check_layout(b, 390, "200-character name")
    C.check(b.eval("document.querySelector('#agents tbody tr td:nth-child(2)').textContent.length") == 200,
            "the 200-character name is shown whole")
    # day navigation: the latest day, then the one before; one day at a time
    visible = "[...document.querySelectorAll('#log .day')].filter(d => !d.hidden).map(d => d.querySelector('h3').textContent)"
    C.check(b.eval(visible) == ["Day 2"], f"following the latest day: {b.eval(visible)}")
    b.eval("document.querySelector('#prev').click()")
    b.wait("true", 2)
    C.check(b.wait(visible + ".join() === 'Day 1'", 5), f"◀ shows day 1 alone: {b.eval(visible)}")
    # sentences, the protocol text once; a talk without one shows its text once
    talk = "[...document.querySelectorAll('#day-1 .talk')].map(t => t.textContent)"
    texts = b.eval(talk)
    C.check(any("I will vote for Agent[03]." in t for t in texts), f"the English sentence: {texts}")
    C.check(all(t.count("VOTE Agent[0") == 1 for t in texts), f"the protocol text once: {texts}")
    b.eval("const l = document.querySelector('#lang'); l.value = 'ja'; l.dispatchEvent(new Event('change'))")
    C.check(b.wait(talk + ".some(t => t.includes('Agent[03]に投票する'))", 5), f"the Japanese sentence: {b.eval(talk)}")
finally:
    if b:
        b.close()
    s.stop()
    os.remove(named)
C.done()
