#!/usr/bin/env python3
"""events.js (the pages' model of a game) against hostile events, as an
untrusted events file may hold them: agents that are not numbers
("__proto__", "constructor"), members of the wrong type, nulls. Building the
model and rendering every day, in headless Chromium, must not throw, nor
change anything outside the model (Object.prototype).
    python3 redteam_events.py runtime/web/pages/events.js"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webclient import Chromium  # noqa: E402

TEST = r"""
(function () {
const hostile = [
    { event: "begin", players: 5, agents: "abc" },
    { event: "begin", players: 5, agents: [null, 7, "x", { agent: "__proto__", name: "P", role: "WEREWOLF" }] },
    { event: "begin", players: 5, agents: { length: 3 } },
    { event: "status", day: 0, agent: "__proto__", role: "WEREWOLF", alive: true },
    { event: "status", day: 0, agent: "constructor", role: "SEER", alive: false },
    { event: "execute", day: 1, agent: "toString", role: "SEER" },
    { event: "call", day: 1, agent: "__proto__", us: 5, fault: "timeout" },
    { event: "attack", day: 1, target: "__proto__", success: true },
    { event: "vote", day: 1, agent: 1, target: 2, round: "__proto__" },
    { event: "vote", day: 1, agent: "__proto__", target: "constructor", round: "constructor" },
    { event: "attackVote", day: 1, agent: null, target: null, round: null },
    { event: "talk", day: 1, agent: "__proto__", text: null },
    { event: "talk", day: 1, agent: { a: 1 }, text: { b: 2 } },
    { event: "divine", day: 1e308, agent: 1, target: 2, result: "HUMAN" },
    { event: "result", day: "x", winner: "<b>VILLAGER</b>" },
    null, 5, "text", [],
  ];
  const fails = [];
  let g = null;
  try {
    g = AW.build(hostile);
  } catch (e) {
    fails.push("build threw: " + e);
  }
  if (g) {
    for (const d of [0, 1, 2]) {
      for (const reveal of [false, true]) {
        try {
          AW.renderPlayers(document.createElement("tbody"), g, d, { lang: "en", reveal, agent: 0 });
          AW.renderDay(document.createElement("div"), g, d, { lang: "en", reveal, agent: 0 });
        } catch (e) {
          fails.push(`rendering day ${d} threw: ${e}`);
        }
      }
    }
  }
  for (const k of ["role", "name", "diedDay", "calls", "push", "agent"]) {
    if (Object.prototype.hasOwnProperty.call(Object.prototype, k)) fails.push("Object.prototype." + k + " was set");
  }
  if (Object.prototype.hasOwnProperty.call(Object, "diedDay") || Object.prototype.hasOwnProperty.call(Object, "role"))
    fails.push("the Object function was changed");
  return fails;
})()
"""


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        model = f.read()
    with Chromium() as b:
        b.open("about:blank")
        b.eval(model + "\n;window.AW = AW; true")
        fails = b.eval(TEST)
        if b.exceptions:
            fails.append("the page threw: " + json.dumps(b.exceptions)[:2000])
    for f in fails:
        print("redteam_events: FAIL " + f)
    print("redteam_events: " + (f"{len(fails)} failure(s)" if fails else "ok"))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
