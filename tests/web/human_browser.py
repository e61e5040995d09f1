"""The human page in headless Chromium: a whole game of `aiwolf play --http
--human 1` against sample agents, played by clicking the page — agents'
buttons for votes and night actions, the sentence buttons for talks, a
typed text that the parser refuses (its error shown in place) and then
fixes — with the countdown running; the game ends with a legal log that
holds what the page said. Then a villager's game: its night steps shown
with a Sleep button, which ends each night. Without the token the page is refused. With a
second argument, a folder, it saves screenshots there (docs/images)."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import live_common as C  # noqa: E402
from webclient import Chromium  # noqa: E402

C.BIN = sys.argv[1]
shots = sys.argv[2] if len(sys.argv) > 2 else None
log = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"human_browser_{os.getpid()}.log")
s = C.Server(["play", "--human", "1", "--human-timeout", "30", "--players", "15", "--seed", "12", "--quiet",
              "--deal", "1=SEER", "--log", log, "agents/sample.lua"])
tok = s.tokens[1]
b = None


def next_request(br, what):
    """The view of the next request that wants an answer, or None at the
    game's end (or when none comes)."""
    if not br.wait("window.awHuman && window.awHuman.view() && (window.awHuman.view().request === 'FINISH' || "
                   "(window.awHuman.view().answer !== 'none' && !window.awHuman.answered()))", 120):
        C.check(False, what + "a request comes")
        return None
    v = br.eval("window.awHuman.view()")
    return None if v["request"] == "FINISH" else v

said, clicks, typed_error = [], 0, False
shot_talk = shot_vote = False
try:
    b = Chromium(1200, 1000)
    b.open(f"http://127.0.0.1:{s.port}/human/1")
    C.check("token" in b.eval("document.body.textContent"), "without the token the page is refused")
    b.open(f"http://127.0.0.1:{s.port}/human/1?token={tok}")
    end = time.time() + 600
    while time.time() < end:
        v = next_request(b, "")
        if not v:
            break
        C.check(b.eval("/^\\d+ s$/.test(document.querySelector('#countdown').textContent)"), "the countdown runs")
        if v["answer"] == "target":
            if shots and not shot_vote and v["request"] == "VOTE":
                b.screenshot(os.path.join(shots, "human-vote.png"))
                shot_vote = True
            C.check(b.eval("document.querySelectorAll('#targets button').length") > 0, "agents' buttons")
            b.eval("document.querySelector('#targets button').click()")
        elif v["answer"] == "confirm":
            C.check(b.eval("!!document.querySelector('#confirm')"), "the night step's button")
            b.eval("document.querySelector('#confirm').click()")
        else:
            if not typed_error:
                # a typed text the parser refuses: the error shows in place
                b.eval("const t = document.querySelector('#text'); t.value = 'VOTE Agent[9'; "
                       "t.dispatchEvent(new Event('input'))")
                C.check(b.wait("document.querySelector('#check').textContent.includes('at byte')", 10),
                        "the parser's error is shown as one types")
                if shots:
                    b.screenshot(os.path.join(shots, "human-talk-error.png"))
                typed_error = True
            label = ["vote", "estimate werewolf", "divined human", "ask all to vote"][clicks % 4]
            b.eval(f"[...document.querySelectorAll('#acts button')].find(x => x.textContent === '{label}').click()")
            C.check(b.wait("document.querySelector('#check').textContent.includes('valid') && "
                           "!document.querySelector('#check').textContent.includes('✗')", 10), f"'{label}' is valid")
            text = b.eval("document.querySelector('#text').value")
            if shots and not shot_talk and v["day"] >= 1 and len(v["talks"]) > 3:
                b.screenshot(os.path.join(shots, "human-talk.png"))
                shot_talk = True
            b.eval("document.querySelector('#send').click()")
            said.append(text)
        clicks += 1
        C.check(b.wait("window.awHuman.answered() || window.awHuman.view().seq !== %d" % v["seq"], 30),
                "the answer is taken")
    C.check(b.wait("window.awHuman.view() && window.awHuman.view().request === 'FINISH'", 300), "the game ends")
    C.check(b.eval("document.querySelectorAll('#agents td.hidden-role').length") == 0, "every role at the end")
    if shots:
        b.screenshot(os.path.join(shots, "human-finish.png"))
finally:
    if b:
        b.close()
    C.check(s.wait_lingering(60), "the game is over")
    C.check(s.stop() == 0, "the server exits 0")
ok, out = C.aiwolf_check(log)
C.check(ok, f"the log is legal: {out}")
text = open(log).read()
C.check(clicks > 3, f"the page played: {clicks} answers")
for t in said:
    C.check(f",1,{t}" in text, f"'{t}' is in the log")
os.unlink(log)


def night_step():
    """A villager's night: the page shows the night step with its Sleep
    button; clicking it ends the step and the new day's view follows."""
    v2 = C.Server(["play", "--human", "1", "--human-timeout", "60", "--players", "5", "--seed", "4", "--quiet",
                   "--deal", "1=VILLAGER", "agents/sample.lua"])
    nights = 0
    try:
        with Chromium(1200, 900) as br:
            br.open(f"http://127.0.0.1:{v2.port}/human/1?token={v2.tokens[1]}")
            end = time.time() + 300
            while time.time() < end:
                v = next_request(br, "night: ")
                if not v:
                    break
                if v["answer"] == "confirm":
                    C.check(v["request"] == "NIGHT", f"the night step's request: {v['request']}")
                    C.check("Night falls" in br.eval("document.querySelector('#what').textContent"), "the night is said")
                    C.check(br.eval("document.querySelectorAll('#targets button').length") == 1,
                            "only the Sleep button at night")
                    if shots and not nights:
                        br.screenshot(os.path.join(shots, "human-night.png"))
                    br.eval("document.querySelector('#confirm').click()")
                    C.check(br.wait("window.awHuman.view().seq > %d && window.awHuman.view().day === %d"
                                    % (v["seq"], v["day"] + 1), 30), "after the night: the new day")
                    nights += 1
                    continue
                if v["answer"] == "target":
                    br.eval("document.querySelector('#targets button').click()")
                else:
                    br.eval("document.querySelector('#over').click()")
                C.check(br.wait("window.awHuman.answered() || window.awHuman.view().seq !== %d" % v["seq"], 30),
                        "night game: the answer is taken")
    finally:
        C.check(v2.wait_lingering(120), "night game: the game is over")
        C.check(v2.stop() == 0, "night game: the server exits 0")
    C.check(nights > 0, f"the villager had night steps ({nights})")


night_step()
C.done()
