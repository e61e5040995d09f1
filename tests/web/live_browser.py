"""The live page in headless Chromium: it watches a game of `aiwolf play
--http` as it runs (while it runs the page shows no role but its own
"?" and no whisper; once the game is over, the full record replaces it:
every role and the night actions) to its end. With a second argument, a
folder, it saves screenshots there (docs/images)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import live_common as C  # noqa: E402
from webclient import Chromium  # noqa: E402

C.BIN = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else None

# The game must last while the page watches: agents that take their time.
slow = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"live_browser_slow_{os.getpid()}.lua")
with open(slow, "w") as f:
    text = open("agents/sample.lua").read()
    end = text.rindex("return S")
    f.write(text[:end] + """
local talk0 = S.talk
function S:talk(...)
  local t0 = os.clock()
  while os.clock() - t0 < 0.02 do end
  return talk0(self, ...)
end
return S
""")
s = C.Server(["play", "--players", "15", "--seed", "5", "--quiet", "--budget", "2000", slow, "agents/sample.lua"])
b = None
try:
    b = Chromium()
    b.open(f"http://127.0.0.1:{s.port}/")
    C.check(b.wait("document.querySelector('#games a') !== null", 30), "the list shows the game")
    b.eval("document.querySelector('#games a').click()")
    C.check(b.wait("location.pathname === '/live/1'", 10), "the game's page")
    C.check(b.wait("document.querySelectorAll('#log .talk').length > 5", 60), "talks appear")
    running = b.eval("!window.awLive.state().over")
    C.check(running, "the page shows the game while it runs")
    if running:
        C.check(b.eval("document.querySelectorAll('#agents td.role-hidden').length") == 15, "no role is shown while it runs")
        C.check(b.eval("document.querySelectorAll('#log .whisper, #log .fact.divine, #log .fact.guard').length + "
                      "[...document.querySelectorAll('#log h3')].filter(h => h.textContent.startsWith('Attack votes')).length") == 0,
                "no whisper or night action while it runs")
        if shots:
            b.eval("window.scrollTo(0, 0)")
            b.screenshot(os.path.join(shots, "live-running.png"))
    C.check(b.wait("window.awLive.state() && window.awLive.state().over && "
                   "document.querySelectorAll('#log .result').length === 1", 180), "the page reaches the result")
    C.check(b.eval("document.querySelectorAll('#agents td.role-hidden').length") == 0, "every role after the end")
    C.check(b.eval("document.querySelectorAll('#log .whisper').length") > 0, "the whispers after the end")
    C.check(b.eval("document.querySelectorAll('#log .fact.divine, #log .fact.guard').length") > 0, "the night actions after the end")
    C.check("wins" in b.eval("document.querySelector('#log .result').textContent"), "the winner")
    if shots:
        b.eval("window.scrollTo(0, 0)")
        b.screenshot(os.path.join(shots, "live-over.png"))
finally:
    if b:
        b.close()
    C.check(s.stop() == 0, "the server exits 0")
    os.unlink(slow)
C.done()
