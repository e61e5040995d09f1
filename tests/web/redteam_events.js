// events.js (the pages' model of a game) against hostile events, as an
// untrusted events file may hold them: agents that are not numbers
// ("__proto__", "constructor"), members of the wrong type, nulls. Building
// the model and rendering every day must not throw, nor change anything
// outside the model (Object.prototype).
//     node redteam_events.js runtime/web/pages/events.js
"use strict";
const fs = require("fs");
const vm = require("vm");

function fakeElement(tag) {
  return {
    tag, children: [], dataset: {}, className: "", _text: "",
    appendChild(c) { this.children.push(c); return c; },
    set textContent(t) { this._text = String(t); this.children = []; },
    get textContent() { return this._text + this.children.map((c) => c.textContent).join(""); },
  };
}
const sandbox = { document: { createElement: fakeElement } }; // the context has its own builtins
vm.createContext(sandbox);
vm.runInContext(fs.readFileSync(process.argv[2], "utf8") + "\nthis.AW = AW;", sandbox);
const AW = sandbox.AW;
const ObjectProto = vm.runInContext("Object.prototype", sandbox);
const ObjectFn = vm.runInContext("Object", sandbox);

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
let fails = 0;
const fail = (what) => { fails++; console.log("redteam_events: FAIL " + what); };

let g = null;
try {
  g = AW.build(hostile);
} catch (e) {
  fail("build threw: " + e);
}
if (g) {
  for (const d of [0, 1, 2]) {
    for (const reveal of [false, true]) {
      try {
        AW.renderPlayers(fakeElement("tbody"), g, d, { lang: "en", reveal, agent: 0 });
        AW.renderDay(fakeElement("div"), g, d, { lang: "en", reveal, agent: 0 });
      } catch (e) {
        fail(`rendering day ${d} threw: ${e}`);
      }
    }
  }
}
for (const k of ["role", "name", "diedDay", "calls", "push", "agent"]) {
  if (Object.prototype.hasOwnProperty.call(ObjectProto, k)) fail("Object.prototype." + k + " was set");
}
if (Object.prototype.hasOwnProperty.call(ObjectFn, "diedDay") || Object.prototype.hasOwnProperty.call(ObjectFn, "role"))
  fail("the Object function was changed");
console.log("redteam_events: " + (fails ? fails + " failure(s)" : "ok"));
process.exit(fails ? 1 : 0);
