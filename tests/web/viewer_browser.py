"""`aiwolf view` in headless Chromium, checking what a person sees against
the files themselves (read here, not hard-coded): one recorded official
game (its players, a talk's readable sentence in English and Japanese, the
day's votes voter by voter, the role toggle, the keys, the agent filter,
the winner), a small contest's folder (its games.tsv listed, the search, a
game, the sandboxed report; the entries by their folder names beside the
agents' own, the filters by entry and by fault, a game's faults with their
messages), and a garbage file, a chaos log, the official
game gzipped and an events file of two games side by side; each server
stops on SIGINT with status 0. With a second argument, a folder, it saves
the screenshots there (docs/images/viewer-*.png).
    viewer_browser.py AIWOLF [SCREENSHOTS]"""
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webclient import Chromium  # noqa: E402

aiwolf = sys.argv[1] if len(sys.argv) > 1 else None
shots = sys.argv[2] if len(sys.argv) > 2 else None
if len(sys.argv) < 2 or len(sys.argv) > 3 or (shots and not os.path.isdir(shots)):
    sys.exit(__doc__ + ("\n" + shots + ": not a folder" if shots else ""))
LOG = "tests/fixtures/official/direct/5p/game000.log"
fails = 0


def check(ok, what):
    global fails
    if not ok:
        fails += 1
        print("viewer_browser: FAIL " + what)
    return ok


def agent_name(a):
    return f"Agent[{int(a):02d}]"


# The recorded game, read here: roles, day-1 talk and votes, last day, winner.
with open(LOG) as f:
    lines = [ln.split(",") for ln in f.read().strip().split("\n")]
roles = {int(f[2]): f[3] for f in lines if f[0] == "0" and f[1] == "status"}
players = len(roles)
seer = next(a for a, r in roles.items() if r == "SEER")
first_vote_talk = next(f for f in lines if f[0] == "1" and f[1] == "talk"
                       and re.fullmatch(r"VOTE Agent\[\d\d\]", ",".join(f[5:])))
votes1 = [f for f in lines if f[0] == "1" and f[1] == "vote"]
result = next(f for f in lines if f[1] == "result")

tmp = tempfile.mkdtemp(prefix="viewer_browser.")
servers = {}  # name: (process, stdout file)


def serve(name, *args):
    """Starts aiwolf view ARGS...; its URL."""
    out = os.path.join(tmp, name + ".out")
    with open(out, "w") as o:
        p = subprocess.Popen([aiwolf, "view", *args], stdout=o, stderr=subprocess.STDOUT)
    servers[name] = (p, out)
    for _ in range(300):
        with open(out) as o:
            m = re.search(r" at (http\S+) ", o.read())
        if m:
            return m.group(1)
        if p.poll() is not None:
            break
        time.sleep(0.05)
    with open(out) as o:
        raise RuntimeError(f"aiwolf view {' '.join(args)} did not start: {o.read()}")


def stop_servers():
    """SIGINT to each server: it must stop with status 0 and say so."""
    for name, (p, out) in servers.items():
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        try:
            st = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            st = p.wait()
        with open(out) as o:
            text = o.read()
        check(st == 0 and "stopped" in text, f"aiwolf view ({name}) stops cleanly on SIGINT (status {st}): {text}")
    servers.clear()


# [agent, the text of its role cell] for each row of the players' table
ROLE_CELLS = ("Array.from(document.querySelectorAll('#players tbody tr'))"
              ".map(r => [r.dataset.agent, r.cells[2].textContent])")


def texts(b, sel):
    return b.eval(f"Array.from(document.querySelectorAll({json.dumps(sel)})).map(e => e.textContent)")


def set_value(b, element, value, event):
    """Sets the value of the input or select #element as a person would."""
    b.eval(f"{{ const e = document.getElementById({json.dumps(element)}); e.value = {json.dumps(str(value))}; "
           f"e.dispatchEvent(new Event({json.dumps(event)})) }}")


def need(b, expr, what, timeout=10):
    if not b.wait(expr, timeout):
        raise RuntimeError(f"timed out waiting for {what}")


def shot(b, name):
    if shots:
        b.screenshot(os.path.join(shots, name))


def one_game(b, url):
    b.open(url)
    need(b, "document.querySelectorAll('#players tbody tr').length > 0", "the players")
    check(len(texts(b, "#players tbody tr")) == players, f"{players} players listed")
    check(texts(b, "#day-title") == ["Day 1"], "opens on day 1")
    cells = b.eval(ROLE_CELLS)
    seer_cell = next((r[1] for r in cells if int(r[0]) == seer), None)
    check(seer_cell == "?", f"the seer's role is hidden on day 1 (got {seer_cell})")
    # a talk's readable sentence with its protocol text
    target = ",".join(first_vote_talk[5:])[len("VOTE "):]
    want = f"{agent_name(first_vote_talk[4])} will vote for {target}"
    talks = b.eval("Array.from(document.querySelectorAll('#day .talk')).map(t => "
                   "[t.querySelector('.said').textContent, t.querySelector('code').textContent])")
    check([want, "VOTE " + target] in talks, f'the talk "{want}" with its text')
    # the day's votes as a table, voter by voter as in the log
    rows = b.eval("Array.from(document.querySelectorAll('#day .day-votes .vote-table tr')).slice(1)"
                  ".map(r => [r.cells[0].textContent, r.cells[1].textContent])")
    check(len(rows) == len(votes1), f"day 1 has {len(votes1)} vote rows (got {len(rows)})")
    for f in votes1:
        voter, voted = agent_name(f[2]), agent_name(f[3])
        check(any(r[0].startswith(voter) and r[1].startswith(voted) for r in rows), f"{voter} votes for {voted}")
    shot(b, "viewer-game.png")
    # the role toggle
    b.eval("document.getElementById('reveal').click()")
    shown = b.eval(ROLE_CELLS)
    check(len(shown) == players and all(r[1] == roles[int(r[0])] for r in shown), "show all roles: every role as dealt")
    b.eval("document.getElementById('reveal').click()")
    hidden = b.eval(ROLE_CELLS)
    check(next((r[1] for r in hidden if int(r[0]) == seer), None) == "?", "hide the roles again: the seer's is hidden")
    # keyboard, day by day
    b.key("ArrowRight")
    check(texts(b, "#day-title") == ["Day 2"], "right arrow: day 2")
    b.key("ArrowLeft")
    check(texts(b, "#day-title") == ["Day 1"], "left arrow: day 1")
    b.key("End")
    check(texts(b, "#day-title") == [f"Day {result[0]}"], f"End: the last day, day {result[0]}")
    res = (texts(b, "#day .result") or [""])[0]
    check(f"{result[4]} wins" in res, f'the result: {result[4]} wins (got "{res}")')
    check(all(r[1] != "?" for r in b.eval(ROLE_CELLS)), "every role is known at the end")
    b.key("Home")
    check(texts(b, "#day-title") == ["Day 0"], "Home: day 0")
    b.key("j")
    check(texts(b, "#day-title") == ["Day 1"], "j: day 1")
    # Japanese
    set_value(b, "lang", "ja", "change")
    ja = texts(b, "#day .talk .said")
    check(f"{agent_name(first_vote_talk[4])}は{target}に投票する" in ja, "the same talk in Japanese")
    # filter by agent
    set_value(b, "agent-filter", seer, "change")
    who = b.eval("Array.from(document.querySelectorAll('#day .talk')).map(t => +t.dataset.agent)")
    check(who and all(a == seer for a in who), f"agent filter: only {agent_name(seer)}'s talk (got {who})")


def contest(b, url, folder):
    with open(os.path.join(folder, "games.tsv")) as f:
        tsv = [ln.split("\t") for ln in f.read().strip().split("\n")]
    b.open(url)
    need(b, "document.querySelectorAll('#games li').length > 0", "the list of games")
    check(len(texts(b, "#games li")) == len(tsv), f"{len(tsv)} games listed")
    wolves = sum(1 for c in tsv if c[7] == "WEREWOLF")
    check(0 < wolves < len(tsv), f"the contest has games won by each side ({wolves} of {len(tsv)} by the werewolves)")
    set_value(b, "search", "werewolf won", "input")
    check(len(texts(b, "#games li")) == wolves, f'search "werewolf won": {wolves} games')
    set_value(b, "search", "", "input")
    check(len(texts(b, "#games li")) == len(tsv), "an empty search lists them all again")
    b.eval("document.querySelector('#games li').click()")
    need(b, "document.querySelectorAll('#players tbody tr').length > 0", "game 0's players")
    check(len(texts(b, "#players tbody tr")) == int(tsv[0][4]), f"game 0 has {tsv[0][4]} players")
    check(b.eval("!document.getElementById('report-link').hidden"), "a link to the contest report")
    rep = b.eval("fetch('/report').then(r => r.status + ' ' + r.headers.get('content-security-policy'))")
    check(rep.startswith("200 sandbox"), "the report is served sandboxed: " + rep)
    shot(b, "viewer-contest.png")
    entries_and_faults(b, folder, tsv)


def entries_and_faults(b, folder, tsv):
    """Entries by the organiser's names (contest.cfg), filters by entry and
    by fault, a game's faults with their messages (logs/N.faults)."""
    with open(os.path.join(folder, "contest.cfg")) as f:
        names = [ln.split("\t")[2] for ln in f.read().split("\n") if ln.startswith("entry\t")]
    check(sorted(names) == ["alpha", "gamma", "sample"], f"contest.cfg names the entries by folder: {names}")
    opts = b.eval("Array.from(document.querySelectorAll('#entry-filter option')).map(o => o.value)")
    check(opts == [""] + sorted(names), f"the entry filter offers every entry: {opts}")

    def seat_faults(row):
        return [sum(int(x) for x in f.split(".")) for f in row[10].split(",")]

    def seat_entries(row):
        return [names[int(e)] for e in row[5].split(",")]

    for entry in names:
        set_value(b, "entry-filter", entry, "change")
        want = sum(1 for r in tsv if entry in seat_entries(r))
        check(len(texts(b, "#games li")) == want, f"entry {entry}: {want} games listed")
        b.eval("document.getElementById('fault-filter').click()")
        want = sum(1 for r in tsv if any(e == entry and k > 0 for e, k in zip(seat_entries(r), seat_faults(r))))
        got = len(texts(b, "#games li"))
        check(got == want, f"entry {entry} with faults: {want} games listed (got {got})")
        check((want > 0) == (entry == "gamma"), f"only gamma faults ({entry}: {want})")
        b.eval("document.getElementById('fault-filter').click()")
    set_value(b, "entry-filter", "", "change")
    b.eval("document.getElementById('fault-filter').click()")
    faulty = [r for r in tsv if sum(seat_faults(r)) > 0]
    check(len(texts(b, "#games li")) == len(faulty), f"with faults: {len(faulty)} games listed")
    # the first game with faults: its players by entry, its faults' messages
    row = faulty[0]
    b.eval(f"Array.from(document.querySelectorAll('#games li')).find(li => +li.dataset.id === {int(row[0])}).click()")
    need(b, "!document.getElementById('faults').hidden && document.querySelectorAll('#players tbody tr').length > 0",
         "the game's faults")
    check(b.eval("!document.getElementById('entry-head').hidden"), "the players' table has an entry column")
    cells = b.eval("Array.from(document.querySelectorAll('#players tbody tr')).map(r => [+r.dataset.agent, "
                   "r.cells[1].textContent, r.cells[2].textContent])")
    seats = seat_entries(row)
    check([c[2] for c in cells] == seats, f"each seat's entry as contest.cfg names it: {cells} / {seats}")
    own = {"alpha": "random", "gamma": "crash", "sample": "sample"}
    check(all(c[1] == own[c[2]] for c in cells), f"beside each agent's own name: {cells}")
    with open(os.path.join(folder, row[11].replace(".log.gz", ".faults"))) as f:
        notes = [ln.split("\t") for ln in f.read().strip().split("\n")]
    rows = b.eval("Array.from(document.querySelectorAll('#faults tr.fault-row')).map(r => "
                  "Array.from(r.cells).map(c => c.textContent))")
    check(len(rows) == len(notes), f"{len(notes)} faults shown (got {len(rows)})")
    for got, note in zip(rows, notes):
        check(got[0].startswith(note[0]) and got[1:] == [note[1], note[2], note[3], note[4]],
              f"the fault {note} shown as {got}")
    check(any("crash: update fails on purpose" in r[4] for r in rows), "the messages are the agent's own")
    talkers = texts(b, "#day .talk .who")
    check(any(t.endswith("[alpha]") for t in talkers) or not any("random" in t for t in talkers),
          f"talks name the entry beside the agent's name: {talkers[:3]}")
    shot(b, "viewer-contest-faults.png")


def mixed(b, url):
    b.open(url)
    need(b, "document.querySelectorAll('#games li').length === 4", "four files listed")

    def open_file(i):
        b.eval(f"document.querySelectorAll('#games li')[{i}].click()")
        need(b, "document.getElementById('message').hidden || document.getElementById('message').className === 'error'",
             f"file {i} to load")

    open_file(0)
    msg = texts(b, "#message")[0]
    check(b.eval("document.getElementById('message').className === 'error' && document.getElementById('game').hidden"),
          "a garbage file gives a message: " + msg)
    open_file(1)
    check(len(texts(b, "#players tbody tr")) > 0, "a chaos log shows its players")
    open_file(2)
    check(len(texts(b, "#players tbody tr")) == players, "the gzipped log shows its players")
    open_file(3)
    check(b.eval("!document.getElementById('subgame').hidden && "
                 "document.getElementById('subgame').options.length === 2"),
          "an events file of two games: a choice of game")
    check(b.eval("!document.getElementById('calls-head').hidden"), "an events file: calls per agent")
    check(any(re.match(r"Agent\[\d\d\] ", t) for t in texts(b, "#day .talk .said")),
          "an events file: talks as sentences")
    shot(b, "viewer-events.png")


def files():
    """The contest folder, the garbage, chaos, gzipped and events files."""
    # entries in folders named otherwise than their agents (alpha plays as
    # "random"; gamma, as "crash", fails every call after initialize)
    for folder, src in (("alpha", "agents/random.lua"), ("gamma", "tests/contest/entries/crash/main.lua")):
        os.makedirs(os.path.join(tmp, "entries", folder))
        shutil.copy(src, os.path.join(tmp, "entries", folder, "main.lua"))
    run = [aiwolf, "contest", "--quiet", "--games-per-entry", "30", "--seed", "3", "--jobs", "2",
           "--out", os.path.join(tmp, "contest"), os.path.join(tmp, "entries", "alpha"), "agents/sample.lua",
           os.path.join(tmp, "entries", "gamma")]
    r = subprocess.run(run, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(run)} failed: {r.stdout}{r.stderr}")
    with open(os.path.join(tmp, "garbage.log"), "w") as f:
        noise = os.urandom(3000)
        f.write("\n".join(noise[i:i + 16].hex(" ") for i in range(0, len(noise), 16)) + "\n")
    shutil.copy("tests/fixtures/official/chaos/c000.log", os.path.join(tmp, "chaos.log"))
    with open(LOG, "rb") as f, gzip.open(os.path.join(tmp, "game.log.gz"), "wb") as g:
        g.write(f.read())
    run = [aiwolf, "play", "agents/sample.lua", "agents/random.lua", "--games", "2", "--seed", "5",
           "--events", os.path.join(tmp, "events.jsonl"), "--quiet"]
    r = subprocess.run(run, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(run)} failed: {r.stdout}{r.stderr}")


try:
    files()
    one = serve("one", LOG)
    folder = serve("dir", os.path.join(tmp, "contest"))
    several = serve("mixed", *(os.path.join(tmp, n)
                               for n in ("garbage.log", "chaos.log", "game.log.gz", "events.jsonl")))
    with Chromium(1280, 900) as b:
        for part, args in ((one_game, (one,)), (contest, (folder, os.path.join(tmp, "contest"))), (mixed, (several,))):
            try:
                part(b, *args)
            except (RuntimeError, OSError) as e:  # a page that never got there: the next part still runs
                check(False, f"{part.__name__}: {e}")
        check(not b.exceptions, "no script errors: " + "; ".join(b.exceptions))
except (RuntimeError, OSError) as e:
    check(False, str(e))
finally:
    stop_servers()
    shutil.rmtree(tmp, ignore_errors=True)
print(f"viewer_browser: {fails} failure(s)" if fails else "viewer_browser: ok")
sys.exit(1 if fails else 0)
